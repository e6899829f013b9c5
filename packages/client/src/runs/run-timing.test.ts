import { describe, expect, it } from 'vitest';
import { runTimingOf } from './run-timing.js';

const approval = (requestedAt: number, decidedAt?: number) => ({
  request: { requestedAt } as never,
  decision: decidedAt === undefined ? null : ({ decidedAt } as never),
});

describe('runTimingOf', () => {
  it('spans enqueue to finish, across the approval waits', () => {
    expect(
      runTimingOf({ enqueuedAt: 1_000, finishedAt: 25_000, approvals: [approval(2_000, 24_000)], now: 99_999 }),
    ).toEqual({
      enqueuedAt: 1_000,
      finishedAt: 25_000,
      totalMs: 24_000,
      approvalWaitMs: 22_000,
    });
  });

  it('counts overlapping waits once, and an undecided one until now', () => {
    const timing = runTimingOf({
      enqueuedAt: 0,
      approvals: [approval(10, 50), approval(30, 70), approval(100)],
      now: 130,
    });
    expect(timing).toEqual({ enqueuedAt: 0, totalMs: 130, approvalWaitMs: 60 + 30 });
  });
});
