import { type RefreshReason } from '@agentq/shared';
import { requestRefresh } from '@agentq/store';
import type { Job, Queue, QueueEvents } from 'bullmq';

/** How a refresh job ended. */
export type RefreshResult =
  | { state: 'completed'; value: Record<string, unknown> }
  | { state: 'failed'; failedReason: string; attemptsMade: number };

/** Waits for a job to complete or fail and reports which, with its value or reason. */
export async function settle(job: Job, context: { queue: Queue; events: QueueEvents }): Promise<RefreshResult> {
  try {
    const value = (await job.waitUntilFinished(context.events, 60_000)) as Record<string, unknown>;
    return { state: 'completed', value };
  } catch {
    const fresh = await context.queue.getJob(job.id ?? '');
    return { state: 'failed', failedReason: fresh?.failedReason ?? '', attemptsMade: fresh?.attemptsMade ?? -1 };
  }
}

/** Requests a refresh through the shared producer and waits until it is done. */
export async function refreshNow(input: {
  queue: Queue;
  events: QueueEvents;
  serverId: string;
  reason: RefreshReason;
}): Promise<RefreshResult> {
  const job = (await requestRefresh(input.queue, { serverId: input.serverId, reason: input.reason })) as Job;
  return await settle(job, input);
}

/** The agentq error code at the front of a failed job's reason (`CODE: message`). */
export function failureCode(result: RefreshResult): string | undefined {
  return result.state === 'failed' ? /^([A-Z_]+):/.exec(result.failedReason)?.[1] : undefined;
}

/** Waits until the refresh queue has nothing waiting, delayed or running. */
export async function queueIdle(queue: Queue, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const counts = await queue.getJobCounts('active', 'waiting', 'delayed', 'prioritized');
    if (Object.values(counts).every((count) => count === 0)) return;
    if (Date.now() > deadline) throw new Error(`refresh queue never went idle: ${JSON.stringify(counts)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
