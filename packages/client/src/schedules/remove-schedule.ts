import { AgentqError, parseWith } from '@agentq/shared';
import type { Queue } from 'bullmq';
import type { ClientContext } from '../client-context.js';
import { scheduleIdSchema } from './schedule-input.js';

/** Removes a schedule; runs it already made go on. `NOT_FOUND` when there is no such schedule. */
export async function removeSchedule(context: ClientContext, scheduleId: string): Promise<void> {
  parseWith(scheduleIdSchema, scheduleId, 'schedule id');
  let queue: Queue | undefined;
  for (const shard of await context.shards.candidatesFor(`repeat:${scheduleId}:0`)) {
    const candidate = context.runsQueueOf(shard);
    if (await candidate.getJobScheduler(scheduleId)) {
      queue = candidate;
      break;
    }
  }
  if (!queue) {
    throw new AgentqError({ code: 'NOT_FOUND', field: 'scheduleId', message: `Schedule ${scheduleId} does not exist` });
  }
  await queue.removeJobScheduler(scheduleId);
}
