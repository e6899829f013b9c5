import { AgentqError, defaultRunJobOptions, parseWith, withoutTrace, type RunSpec } from '@agentq/shared';
import type { ClientContext } from '../client-context.js';
import { assertServersKnown, RUN_JOB_NAME } from '../runs/enqueue-run.js';
import { scheduleIdSchema, scheduleTimingSchema } from './schedule-input.js';

/** Input of `scheduleRun`: when, and the run spec every firing enqueues. */
export interface ScheduleRunInput {
  /** Cron pattern (5 or 6 fields). Give this or `everyMs`. */
  cron?: string;
  /** Fixed interval in milliseconds. Give this or `cron`. */
  everyMs?: number;
  /** IANA time zone of `cron`. @default UTC */
  timezone?: string;
  spec: unknown;
}

/** A schedule as stored. */
export interface Schedule {
  scheduleId: string;
  cron?: string;
  everyMs?: number;
  timezone?: string;
  /** Epoch ms of the next firing, when known. */
  nextRunAt?: number;
  /** How many runs it has made. */
  iterations?: number;
  spec: RunSpec | undefined;
}

/**
 * Creates or replaces a schedule, using a BullMQ job scheduler so that exactly one run is made per
 * firing however many workers watch the queue. Validates the id, timing and spec before anything
 * is written.
 */
export async function scheduleRun(
  context: ClientContext,
  input: { scheduleId: string; schedule: ScheduleRunInput },
): Promise<Schedule> {
  const scheduleId = parseWith(scheduleIdSchema, input.scheduleId, 'schedule id');
  const { spec: rawSpec, ...timingInput } = input.schedule;
  const timing = parseWith(scheduleTimingSchema, timingInput, 'schedule');
  // Each firing is a run of its own with a trace of its own: a schedule keeps no trace context,
  // and no incarnation (every firing has a job id and creation time of its own, from which the
  // worker derives one: see `runIncarnationOf`).
  const { incarnation: _incarnation, ...spec } = withoutTrace(parseWith(context.runSpecSchema, rawSpec, 'run spec'));
  // Every firing would start without the missing servers' tools: refuse it once, here.
  await assertServersKnown(context, spec);
  const repeat =
    timing.cron !== undefined
      ? { pattern: timing.cron, ...(timing.timezone ? { tz: timing.timezone } : {}) }
      : { every: timing.everyMs as number };
  try {
    // A schedule's runs (`repeat:<scheduleId>:<ms>`) route by the schedule id: it lives in their shard.
    const queue = context.runsQueueOf(context.shards.forRun(`repeat:${scheduleId}:0`));
    await queue.upsertJobScheduler(scheduleId, repeat, {
      name: RUN_JOB_NAME,
      data: spec,
      opts: defaultRunJobOptions({ attempts: context.runAttempts }),
    });
    // The scheduler's own next firing, as `listSchedules` reports it (the job's timestamp plus
    // its delay can fall a millisecond short of it).
    const scheduler = await queue.getJobScheduler(scheduleId);
    return {
      scheduleId,
      cron: timing.cron,
      everyMs: timing.everyMs,
      timezone: timing.timezone,
      nextRunAt: scheduler?.next ?? undefined,
      spec,
    };
  } catch (error) {
    if (AgentqError.isInstance(error)) throw error;
    // BullMQ rejects cron patterns it cannot parse; that is the caller's input, not a server fault.
    if (timing.cron !== undefined) {
      throw new AgentqError({
        code: 'VALIDATION',
        field: 'cron',
        message: `Invalid schedule: cron: ${(error as Error).message}`,
        cause: error,
      });
    }
    throw error;
  }
}
