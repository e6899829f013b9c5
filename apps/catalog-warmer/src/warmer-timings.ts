/** Every interval the warmer runs on, derived from the configured watch lease. */
export interface WarmerTimings {
  /** TTL of a watcher lease. */
  leaseTtlMs: number;
  /** Heartbeat, lease renewal and rebalancing period. */
  tickMs: number;
  /** A warmer silent for longer than this is not live (and not counted in the fair share). */
  livenessMs: number;
  /** TTL of a warmer's health record. */
  recordTtlMs: number;
  /** Silent warmers are dropped from the live-warmer set after this long. */
  forgetAfterMs: number;
  /** TTL of the per-server refresh lock (renewed while the refresh runs). */
  refreshLockTtlMs: number;
}

/**
 * Derives the warmer's intervals from `watchLeaseMs` ("a dead warmer's servers are taken over
 * within about this long"). Leases live two thirds of it and are renewed every quarter, so one
 * missed renewal is survivable; a dead warmer's leases lapse and its heartbeat leaves the live
 * count at the same moment, and the survivors claim on their next tick: takeover within
 * `2/3 + 1/4` of the lease plus one connect.
 */
export function resolveWarmerTimings(options: { watchLeaseMs: number }): WarmerTimings {
  const lease = Math.max(300, options.watchLeaseMs);
  const leaseTtlMs = Math.round((lease * 2) / 3);
  return {
    leaseTtlMs,
    tickMs: Math.max(75, Math.round(lease / 4)),
    livenessMs: leaseTtlMs,
    recordTtlMs: Math.max(10_000, lease * 4),
    forgetAfterMs: Math.max(60_000, lease * 20),
    refreshLockTtlMs: 20_000,
  };
}
