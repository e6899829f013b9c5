import { silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { resolveWorkerTuning } from './worker-options.js';

describe('resolveWorkerTuning', () => {
  const logger = silentLogger();

  it('fills defaults, with concurrency from the config', () => {
    const tuning = resolveWorkerTuning({}, { workerConcurrency: 7, logger });
    expect(tuning.concurrency).toBe(7);
    expect(tuning.lockDurationMs).toBe(30_000);
  });

  it('rejects values that cannot work and clamps the stalled interval to the lock', () => {
    const tuning = resolveWorkerTuning(
      { concurrency: 0, lockDurationMs: 1_000, stalledIntervalMs: 5_000, maxStalledCount: 2.7 },
      { workerConcurrency: 3, logger },
    );
    expect(tuning.concurrency).toBe(3);
    expect(tuning.stalledIntervalMs).toBe(1_000);
    expect(tuning.maxStalledCount).toBe(2);
  });
});
