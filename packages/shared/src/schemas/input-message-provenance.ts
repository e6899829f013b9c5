import { findPartPayloadIssue, findToolOutputIssue } from './input-part-payload.js';

/** One problem found in the history of input messages; `path` is relative to the messages array. */
export interface ProvenanceIssue {
  path: (string | number)[];
  message: string;
}

/** The part types each role may carry, as the model loop accepts them. */
const partTypesByRole: Record<string, ReadonlySet<string>> = {
  system: new Set(),
  user: new Set(['text', 'image', 'file']),
  assistant: new Set(['text', 'file', 'reasoning', 'tool-call', 'tool-result']),
  tool: new Set(['tool-result']),
};

/**
 * Approval parts are never input. A `tool-approval-request` followed by an approved
 * `tool-approval-response` makes the model loop execute the call at once, so a history that
 * carries them could run a gated tool without any person deciding. Approvals reach the model only
 * from the worker's own approval records.
 */
const approvalPartTypes = new Set(['tool-approval-request', 'tool-approval-response']);

/**
 * Checks that a run's input messages are a history the run could have produced itself: no
 * approval parts, every tool call id given once, and every tool result answering an earlier call
 * that has no result yet. A result for a call the history does not show, or a second result for
 * one call, would let a producer claim that a tool ran (or what it returned) when it never did.
 * Image and file parts carry a payload the model loop can read (see `findPartPayloadIssue`).
 *
 * Each issue's path points at the offending part, for example `[3, 'content', 0]`.
 */
export function findProvenanceIssues(messages: ReadonlyArray<{ role: string; content: unknown }>): ProvenanceIssue[] {
  const issues: ProvenanceIssue[] = [];
  // Tool call id → whether it has been answered yet.
  const calls = new Map<string, boolean>();
  messages.forEach((message, messageIndex) => {
    if (!Array.isArray(message.content)) return;
    const allowed = partTypesByRole[message.role] ?? new Set<string>();
    message.content.forEach((part: unknown, partIndex) => {
      const path = [messageIndex, 'content', partIndex];
      const record = (part ?? {}) as Record<string, unknown>;
      const type = String(record.type);
      if (approvalPartTypes.has(type)) {
        issues.push({
          path,
          message: `${type} parts may not be given as input: approvals come only from the run's own approval records`,
        });
        return;
      }
      if (!allowed.has(type)) {
        issues.push({ path: [...path, 'type'], message: `a ${message.role} message may not carry a ${type} part` });
        return;
      }
      const fieldIssue = missingField(record, type);
      if (fieldIssue) {
        issues.push({ path: [...path, fieldIssue], message: `a ${type} part needs ${fieldIssue}` });
        return;
      }
      if (type === 'image' || type === 'file') {
        const payloadIssue = findPartPayloadIssue(record, type);
        if (payloadIssue) issues.push({ path: [...path, payloadIssue.field], message: payloadIssue.message });
        return;
      }
      if (type === 'tool-call') {
        const id = record.toolCallId as string;
        if (calls.has(id)) issues.push({ path, message: `tool call id ${id} is given twice` });
        else calls.set(id, false);
      } else if (type === 'tool-result') {
        const outputIssue = findToolOutputIssue(record.output as Record<string, unknown>);
        if (outputIssue) issues.push({ path: [...path, ...outputIssue.path], message: outputIssue.message });
        const id = record.toolCallId as string;
        const answered = calls.get(id);
        if (answered === undefined) {
          issues.push({ path, message: `a tool result for call ${id}, which no earlier assistant message makes` });
        } else if (answered) {
          issues.push({ path, message: `a second tool result for call ${id}` });
        } else {
          calls.set(id, true);
        }
      }
    });
  });
  return issues;
}

/** The first required field a part lacks, or `null`. */
function missingField(part: Record<string, unknown>, type: string): string | null {
  const isText = (key: string) => typeof part[key] === 'string';
  switch (type) {
    case 'text':
    case 'reasoning':
      return isText('text') ? null : 'text';
    case 'tool-call':
      if (!isText('toolCallId') || part.toolCallId === '') return 'toolCallId';
      return isText('toolName') ? null : 'toolName';
    case 'tool-result': {
      if (!isText('toolCallId') || part.toolCallId === '') return 'toolCallId';
      if (!isText('toolName')) return 'toolName';
      const output = part.output as Record<string, unknown> | null | undefined;
      return output && typeof output === 'object' && typeof output.type === 'string' ? null : 'output';
    }
    case 'image':
      return part.image === undefined ? 'image' : null;
    case 'file':
      if (part.data === undefined) return 'data';
      return isText('mediaType') ? null : 'mediaType';
    default:
      return null;
  }
}
