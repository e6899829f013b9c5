import { describe, expect, it } from 'vitest';
import { resolveWarmerTimings } from './warmer-timings.js';

describe('resolveWarmerTimings', () => {
  it('keeps a dead warmer’s takeover within the configured lease', () => {
    for (const watchLeaseMs of [1_000, 3_000, 15_000, 60_000]) {
      const timings = resolveWarmerTimings({ watchLeaseMs });
      expect(timings.leaseTtlMs + timings.tickMs).toBeLessThanOrEqual(watchLeaseMs);
      // At least two renewals fit in one lease, so a single slow tick does not lose it.
      expect(timings.tickMs * 2).toBeLessThan(timings.leaseTtlMs);
      expect(timings.livenessMs).toBe(timings.leaseTtlMs);
    }
  });
});
