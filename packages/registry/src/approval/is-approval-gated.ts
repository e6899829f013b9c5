import type { ModelMessage, Tool } from 'ai';

/** The call an approval check is about. */
export interface ApprovalGateContext {
  toolCallId: string;
  messages: ModelMessage[];
  /** The call's input, handed to a `needsApproval` function. */
  input?: unknown;
}

/**
 * Whether calling `tool` needs a person's approval. No `needsApproval` means no; a boolean is
 * returned as it is; a function is awaited. A function that throws counts as gated: when in doubt,
 * ask a person.
 */
export async function isApprovalGated(tool: Tool, context: ApprovalGateContext): Promise<boolean> {
  const needsApproval = tool.needsApproval;
  if (needsApproval === undefined) return false;
  if (typeof needsApproval === 'boolean') return needsApproval;
  try {
    return Boolean(
      await needsApproval(context.input as never, { toolCallId: context.toolCallId, messages: context.messages }),
    );
  } catch {
    return true;
  }
}

/**
 * Whether `tool` may need approval for some call. Used where no call exists yet (deferral): any
 * `needsApproval` other than `false` counts, since a function cannot be asked without a call.
 */
export function mayNeedApproval(tool: Tool): boolean {
  return tool.needsApproval !== undefined && tool.needsApproval !== false;
}
