import { AgentqError, parseWith } from '@agentq/shared';
import type { ClientContext } from '../client-context.js';
import { scheduleIdSchema } from './schedule-input.js';

/** Removes a schedule; runs it already made go on. `NOT_FOUND` when there is no such schedule. */
export async function removeSchedule(context: ClientContext, scheduleId: string): Promise<void> {
  parseWith(scheduleIdSchema, scheduleId, 'schedule id');
  const existing = await context.queues.runs.getJobScheduler(scheduleId);
  if (!existing) {
    throw new AgentqError({ code: 'NOT_FOUND', field: 'scheduleId', message: `Schedule ${scheduleId} does not exist` });
  }
  await context.queues.runs.removeJobScheduler(scheduleId);
}
