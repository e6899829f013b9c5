import type { ModelMessage } from 'ai';

/**
 * `messages` with every approval request under the run's deterministic approval id (`ids` maps the
 * SDK's id to it). The SDK's signature covered its own id, so it is dropped: requests are signed
 * again from the approval records when the run resumes.
 */
export function renameApprovalRequests(
  messages: readonly ModelMessage[],
  ids: ReadonlyMap<string, string>,
): ModelMessage[] {
  if (ids.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    return {
      ...message,
      content: message.content.map((part) => (part.type === 'tool-approval-request' ? renamed(part, ids) : part)),
    };
  });
}

function renamed<T extends { approvalId: string; signature?: string }>(
  part: T,
  ids: ReadonlyMap<string, string>,
): Omit<T, 'signature'> {
  const { signature: _signature, ...request } = part;
  return { ...request, approvalId: ids.get(part.approvalId) ?? part.approvalId };
}
