import { describe, expect, it } from 'vitest';
import { scheduleIdSchema, scheduleTimingSchema } from './schedule-input.js';

describe('scheduleTimingSchema', () => {
  it('needs exactly one of cron and everyMs', () => {
    expect(scheduleTimingSchema.safeParse({ cron: '*/5 * * * *' }).success).toBe(true);
    expect(scheduleTimingSchema.safeParse({ everyMs: 1_000 }).success).toBe(true);
    const neither = scheduleTimingSchema.safeParse({});
    const both = scheduleTimingSchema.safeParse({ cron: '* * * * *', everyMs: 1_000 });
    expect(neither.success).toBe(false);
    expect(both.success).toBe(false);
    expect(neither.error?.issues[0]?.path).toEqual(['cron']);
  });

  it('rejects tiny intervals and a time zone without cron', () => {
    expect(scheduleTimingSchema.safeParse({ everyMs: 10 }).error?.issues[0]?.path).toEqual(['everyMs']);
    expect(scheduleTimingSchema.safeParse({ everyMs: 1_000, timezone: 'Europe/Paris' }).error?.issues[0]?.path).toEqual(
      ['timezone'],
    );
  });

  it('takes only time zones the runtime knows', () => {
    expect(scheduleTimingSchema.safeParse({ cron: '0 3 * * *', timezone: 'Europe/Paris' }).success).toBe(true);
    const mars = scheduleTimingSchema.safeParse({ cron: '0 3 * * *', timezone: 'Mars/Olympus' });
    expect(mars.error?.issues[0]).toMatchObject({ path: ['timezone'], message: expect.stringContaining('IANA') });
  });
});

describe('scheduleIdSchema', () => {
  it('rejects ids that would break BullMQ scheduler keys', () => {
    expect(scheduleIdSchema.safeParse('nightly-report').success).toBe(true);
    expect(scheduleIdSchema.safeParse('a:b').success).toBe(false);
    expect(scheduleIdSchema.safeParse('').success).toBe(false);
  });
});
