import type { ClientContext } from '../client-context.js';
import type { Schedule } from './schedule-run.js';

/** Every schedule, soonest first. */
export async function listSchedules(context: ClientContext): Promise<Schedule[]> {
  const schedulers = await context.queues.runs.getJobSchedulers(0, -1, true);
  return schedulers.map((scheduler) => {
    const spec = context.runSpecSchema.safeParse(scheduler.template?.data);
    return {
      scheduleId: scheduler.id ?? scheduler.key,
      cron: scheduler.pattern ?? undefined,
      everyMs: scheduler.every ?? undefined,
      timezone: scheduler.tz ?? undefined,
      nextRunAt: scheduler.next ?? undefined,
      iterations: scheduler.iterationCount ?? undefined,
      spec: spec.success ? spec.data : undefined,
    };
  });
}
