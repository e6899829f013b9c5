import { loadConfig, silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { resolveWorkerTuning } from './worker-options.js';

describe('resolveWorkerTuning', () => {
  const logger = silentLogger();
  const config = loadConfig({});

  it('fills defaults from the config', () => {
    const tuning = resolveWorkerTuning({}, { config: { ...config, workerConcurrency: 7, runLockMs: 9_000 }, logger });
    expect(tuning.concurrency).toBe(7);
    expect(tuning.lockDurationMs).toBe(9_000);
    expect(tuning.stalledIntervalMs).toBe(config.runStalledIntervalMs);
    expect(tuning.maxStalledCount).toBe(config.runMaxStalled);
  });

  it('recovers a kill -9ed run within 15 s with the default settings', () => {
    // A dead worker's lock lapses after lockDuration; the next stalled check (at most one
    // interval later) moves the run back to waiting.
    const tuning = resolveWorkerTuning({}, { config, logger });
    expect(tuning.lockDurationMs + tuning.stalledIntervalMs).toBeLessThanOrEqual(15_000);
  });

  it('reads the recovery settings from the environment', () => {
    const tuning = resolveWorkerTuning(
      {},
      {
        config: loadConfig({
          AGENTQ_RUN_LOCK_MS: '20000',
          AGENTQ_RUN_STALLED_INTERVAL_MS: '5000',
          AGENTQ_RUN_MAX_STALLED: '2',
        }),
        logger,
      },
    );
    expect(tuning).toMatchObject({ lockDurationMs: 20_000, stalledIntervalMs: 5_000, maxStalledCount: 2 });
    expect(() => loadConfig({ AGENTQ_RUN_LOCK_MS: '10' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });

  it('rejects values that cannot work and clamps the stalled interval to the lock', () => {
    const tuning = resolveWorkerTuning(
      { concurrency: 0, lockDurationMs: 1_000, stalledIntervalMs: 5_000, maxStalledCount: 2.7 },
      { config: { ...config, workerConcurrency: 3 }, logger },
    );
    expect(tuning.concurrency).toBe(3);
    expect(tuning.stalledIntervalMs).toBe(1_000);
    expect(tuning.maxStalledCount).toBe(2);
  });
});
