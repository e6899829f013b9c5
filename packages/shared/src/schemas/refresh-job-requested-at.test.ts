import { describe, expect, it } from 'vitest';
import { refreshJobSchema } from './refresh-job.js';

describe('refreshJobSchema requestedAt', () => {
  it('takes epoch ms, an ISO date-time, or nothing (now)', () => {
    expect(refreshJobSchema.parse({ serverId: 'a', reason: 'on-demand', requestedAt: 5 }).requestedAt).toBe(5);
    expect(
      refreshJobSchema.parse({ serverId: 'a', reason: 'on-demand', requestedAt: '2026-11-30T08:00:00.000Z' })
        .requestedAt,
    ).toBe(Date.parse('2026-11-30T08:00:00.000Z'));
    const before = Date.now();
    const defaulted = refreshJobSchema.parse({ serverId: 'a', reason: 'on-demand' }).requestedAt;
    expect(defaulted).toBeGreaterThanOrEqual(before);
  });

  it('still rejects a malformed time', () => {
    const parsed = refreshJobSchema.safeParse({ serverId: 'a', reason: 'on-demand', requestedAt: 'yesterday' });
    expect(parsed.error?.issues[0]?.path).toEqual(['requestedAt']);
  });
});
