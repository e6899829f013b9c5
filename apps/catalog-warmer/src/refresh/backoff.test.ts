import { describe, expect, it } from 'vitest';
import {
  EMPTY_BACKOFF_MS,
  MAX_FAILURE_BACKOFF_MS,
  nextAttemptAfterFailure,
  nextAttemptAfterSuccess,
} from './backoff.js';

describe('refresh backoff', () => {
  it('waits 5 minutes after an empty answer and not at all after a non-empty one', () => {
    expect(nextAttemptAfterSuccess({ toolCount: 0, now: 1_000 })).toBe(1_000 + EMPTY_BACKOFF_MS);
    expect(EMPTY_BACKOFF_MS).toBe(300_000);
    expect(nextAttemptAfterSuccess({ toolCount: 3, now: 1_000 })).toBeUndefined();
  });

  it('waits 30 s after the first failure, then doubles, up to a ceiling', () => {
    const waits = [1, 2, 3, 4].map((failures) => nextAttemptAfterFailure({ failures, now: 0 }));
    expect(waits).toEqual([30_000, 60_000, 120_000, 240_000]);
    expect(nextAttemptAfterFailure({ failures: 50, now: 0 })).toBe(MAX_FAILURE_BACKOFF_MS);
  });
});
