import { describe, expect, it } from 'vitest';
import { formatChaosReport, runChaos } from './chaos-fleet.js';

// The CI-sized version of `npm run chaos`: real processes (2 warmers, 3 workers, 1 API) on a
// private redis-server with AOF, 40 runs, two kill -9s and one Redis restart. Every bound is
// generous; the assertions are the goals, never timings.
describe('chaos under load (CI size)', () => {
  it('loses no run, duplicates no tool call, loses no approval, and leaves every run as its decision implies', async () => {
    const seed = Date.now() % 1_000_000;
    const report = await runChaos({ runs: 40, kills: 2, killEveryMs: [2_000, 4_000], settleTimeoutMs: 300_000, seed });
    const table = formatChaosReport(report, { seed });
    expect(report.lostRuns, table).toEqual([]);
    expect(report.duplicated, table).toEqual([]);
    expect(report.lostApprovals, table).toEqual([]);
    expect(report.wrongState, table).toEqual([]);
    expect(report.completed, table).toBe(40);
    expect(report.kills, table).toHaveLength(2);
    expect(report.redisRestart, table).not.toBeNull();
  }, 900_000);
});
