import { z } from 'zod';

/** A schedule id: it becomes part of BullMQ's scheduler keys and of every run id it makes. */
export const scheduleIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/, 'must be 1-100 letters, digits, "-", "_" or "." (no ":")');

/** When a schedule fires: a cron pattern or a fixed interval, not both. */
export const scheduleTimingSchema = z
  .strictObject({
    /** Cron pattern with optional seconds field, for example `0 *\/5 * * * *`. */
    cron: z.string().min(1).optional(),
    /** Fixed interval in milliseconds. */
    everyMs: z.number().int().min(100, 'must be at least 100').optional(),
    /** IANA time zone of the cron pattern. @default UTC */
    timezone: z.string().min(1).refine(isTimeZone, 'must be an IANA time zone, for example Europe/Paris').optional(),
  })
  .superRefine((value, context) => {
    if ((value.cron === undefined) === (value.everyMs === undefined)) {
      context.addIssue({ code: 'custom', path: ['cron'], message: 'give exactly one of cron or everyMs' });
    }
    if (value.timezone !== undefined && value.cron === undefined) {
      context.addIssue({ code: 'custom', path: ['timezone'], message: 'only applies to cron schedules' });
    }
  });

export type ScheduleTiming = z.output<typeof scheduleTimingSchema>;

/** Whether the runtime knows `name` as a time zone (an IANA name such as `Europe/Paris`, or `UTC`). */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
