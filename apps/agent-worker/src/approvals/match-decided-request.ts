import { digestOf, type ApprovalJob } from '@agentq/shared';

/** A gated call as it is about to execute, described the way its approval request describes one. */
export interface GatedCall {
  runId: string;
  /** The incarnation of the run executing it. */
  incarnation: string;
  toolCallId: string;
  /** The wire name the call names. */
  toolName: string;
  /** The call's arguments. */
  input: unknown;
  /** The MCP server the wire name stands for now; absent for builtin tools. */
  serverId?: string;
  /** Digest of the tool's input schema now; absent when the tool is no longer in the run's catalog. */
  schemaDigest?: string;
}

/**
 * Why `call` is not the call the person decided, or `null` when it is. `request` must be the
 * approval record's own request (what the person was shown), never a copy the run keeps: the run
 * incarnation, the tool call id, the tool's wire name, its server, the digest of the arguments
 * and the digest of the tool's input schema must all be the ones recorded. The arguments must also
 * be the ones the person saw (`request.input`), not merely match the recorded digest.
 */
export function mismatchWithDecidedRequest(options: { request: ApprovalJob; call: GatedCall }): string | null {
  const { request, call } = options;
  const notExecuted = 'Not executed:';
  if (request.incarnation === undefined) {
    return `${notExecuted} the approval was requested before approvals were bound to one run, so it no longer applies; ask again.`;
  }
  if (request.runId !== call.runId || request.incarnation !== call.incarnation) {
    return `${notExecuted} the approval was given to another run (an earlier run under the same id), not to this one.`;
  }
  if (request.toolCallId !== call.toolCallId) {
    return `${notExecuted} the approval was given to another tool call.`;
  }
  if (request.toolName !== call.toolName) {
    return `${notExecuted} the approval was given for ${request.toolName}, not for ${call.toolName}.`;
  }
  if (call.schemaDigest === undefined) {
    return `${notExecuted} ${call.toolName} is no longer in the tool catalog, so the approval no longer applies.`;
  }
  if ((request.serverId ?? null) !== (call.serverId ?? null)) {
    return `${notExecuted} ${call.toolName} now belongs to another server than the one the approval was given for; ask again.`;
  }
  const argsDigest = digestOf(call.input ?? {});
  if (argsDigest !== request.argsDigest || argsDigest !== digestOf(request.input ?? {})) {
    return `${notExecuted} the arguments of this ${call.toolName} call do not match the approved ones.`;
  }
  if (call.schemaDigest !== request.schemaDigest) {
    return `${notExecuted} the input schema of ${call.toolName} changed after the approval was requested; ask again.`;
  }
  return null;
}
