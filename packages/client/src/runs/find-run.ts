import type { RunShard } from '@agentq/store';
import type { Queue } from 'bullmq';
import type { ClientContext } from '../client-context.js';

/** Where a run lives: its shard, that shard's `agent-runs` queue, and the job's BullMQ state. */
export interface FoundRun {
  shard: RunShard;
  queue: Queue;
  state: string;
}

/**
 * Finds the shard of an existing run: its shard under the current shard count first (one
 * command, the common case), then its shard under every count recorded before, so that runs
 * enqueued before `AGENTQ_RUN_SHARDS` changed stay readable. `undefined` when no shard has it.
 */
export async function findRun(context: ClientContext, runId: string): Promise<FoundRun | undefined> {
  const current = context.shards.forRun(runId);
  const queue = context.runsQueueOf(current);
  const state = await queue.getJobState(runId);
  if (state !== 'unknown') return { shard: current, queue, state };
  for (const shard of await context.shards.candidatesFor(runId)) {
    if (shard === current) continue;
    const other = context.runsQueueOf(shard);
    const otherState = await other.getJobState(runId);
    if (otherState !== 'unknown') return { shard, queue: other, state: otherState };
  }
  return undefined;
}
