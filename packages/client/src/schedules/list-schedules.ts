import type { ClientContext } from '../client-context.js';
import type { Schedule } from './schedule-run.js';

/** Every schedule, soonest first. */
export async function listSchedules(context: ClientContext): Promise<Schedule[]> {
  const shards = await context.shards.everyKnownShard();
  const perShard = await Promise.all(
    shards.map(async (shard) => await context.runsQueueOf(shard).getJobSchedulers(0, -1, true)),
  );
  return perShard
    .flat()
    .map((scheduler) => {
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
    })
    .sort((a, b) => (a.nextRunAt ?? Infinity) - (b.nextRunAt ?? Infinity));
}
