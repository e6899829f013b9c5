import type { ToolCallRecord } from '../schemas/run-result.js';

type Part = Record<string, unknown> & { type?: unknown };
type Message = { role: string; content?: unknown };

function partsOf(message: Message): Part[] {
  return Array.isArray(message.content) ? (message.content as Part[]) : [];
}

/**
 * The tool calls of a run, read back from its messages: what was called, with what, what came
 * back, and how any approval went. Derived from the messages rather than kept on the side, so it
 * is right whatever step or process produced each part.
 */
export function summarizeToolCalls(messages: readonly Message[]): ToolCallRecord[] {
  const records = new Map<string, ToolCallRecord>();
  const approvalsById = new Map<string, string>();
  let step = -1;
  for (const message of messages) {
    if (message.role === 'assistant') {
      step += 1;
      for (const part of partsOf(message)) {
        if (part.type === 'tool-call') {
          const id = String(part.toolCallId);
          records.set(id, {
            toolCallId: id,
            toolName: String(part.toolName),
            input: part.input,
            isError: false,
            ...(part.providerExecuted === true ? { providerExecuted: true as const } : {}),
            step: Math.max(step, 0),
          });
        } else if (part.type === 'tool-result') {
          // A call the provider ran itself (its tool search) has its result in the same message.
          applyResult(records, part);
        } else if (part.type === 'tool-approval-request') {
          approvalsById.set(String(part.approvalId), String(part.toolCallId));
        }
      }
    } else if (message.role === 'tool') {
      for (const part of partsOf(message)) {
        if (part.type === 'tool-result') {
          applyResult(records, part);
        } else if (part.type === 'tool-approval-response') {
          const toolCallId = approvalsById.get(String(part.approvalId));
          const record = toolCallId ? records.get(toolCallId) : undefined;
          if (!record) continue;
          record.approval = {
            approvalId: String(part.approvalId),
            approved: part.approved === true,
            reason: typeof part.reason === 'string' ? part.reason : undefined,
          };
        }
      }
    }
  }
  return [...records.values()];
}

function applyResult(records: Map<string, ToolCallRecord>, part: Part): void {
  const record = records.get(String(part.toolCallId));
  if (!record) return;
  const output = part.output as { type?: string; value?: unknown; reason?: string } | undefined;
  record.output = output?.type === 'execution-denied' ? { denied: true, reason: output.reason } : output?.value;
  record.isError = output?.type === 'error-text' || output?.type === 'error-json';
}

/** Ids of tool calls that have a result (executed, failed or denied) in `messages`. */
export function answeredToolCallIds(messages: readonly Message[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool') continue;
    for (const part of partsOf(message)) {
      if (part.type === 'tool-result') ids.push(String(part.toolCallId));
    }
  }
  return ids;
}
