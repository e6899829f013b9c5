import { AgentqError, type ApprovalJob, type DecisionRecord } from '@agentq/shared';
import type { ClientContext } from './client-context.js';

/** A pending approval as listed for approvers. */
export type PendingApprovalInfo = ApprovalJob;

/** Input of `decide`. */
export interface DecideInput {
  approvalId: string;
  approved: boolean;
  reason?: string;
  decidedBy: string;
}

// TEMPORARY: the approvals functions are written in parallel in ./approvals/. Until they land this
// bridge loads them lazily, so the rest of the client works and typechecks without them.
async function load(name: string): Promise<(...args: unknown[]) => Promise<unknown>> {
  const specifier = './approvals/index.js';
  try {
    const module = (await import(specifier)) as Record<string, unknown>;
    const fn = module[name];
    if (typeof fn === 'function') return fn as (...args: unknown[]) => Promise<unknown>;
  } catch {
    // fall through
  }
  throw new AgentqError({ code: 'NOT_IMPLEMENTED', message: `${name} is not available yet` });
}

/** Pending approvals, optionally of one run. */
export async function listPendingApprovalsBridge(
  context: ClientContext,
  filter: { runId?: string },
): Promise<PendingApprovalInfo[]> {
  const fn = await load('listPendingApprovals');
  return (await fn({ redis: context.redis, prefix: context.prefix }, filter)) as PendingApprovalInfo[];
}

/** Records a decision and wakes the run. */
export async function decideBridge(context: ClientContext, input: DecideInput): Promise<DecisionRecord> {
  const fn = await load('decide');
  return (await fn(
    { redis: context.redis, prefix: context.prefix, queue: context.queues.approvals },
    input,
  )) as DecisionRecord;
}
