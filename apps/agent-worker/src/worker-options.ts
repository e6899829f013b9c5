import type { Config, Logger } from '@agentq/shared';

/** Tuning of an agent worker that is not part of the deployment config. */
export interface AgentWorkerTuning {
  /**
   * Runs executed at once by this process.
   * @default config.workerConcurrency
   */
  concurrency?: number;
  /**
   * BullMQ lock duration of a run, in ms. A crashed worker's runs are taken over after about this
   * long (plus `stalledIntervalMs`).
   * @default config.runLockMs (6000)
   */
  lockDurationMs?: number;
  /** How often stalled runs are looked for, in ms. @default config.runStalledIntervalMs (3000) */
  stalledIntervalMs?: number;
  /**
   * How many times a run may stall (its worker died) before it fails. Runs resume from their
   * checkpoint, so a stall costs little; the limit only stops a run that kills every worker.
   * @default config.runMaxStalled (5)
   */
  maxStalledCount?: number;
  /** Approval and decision jobs executed at once. @default 16 */
  approvalConcurrency?: number;
  /** How often the sweeper delivers decided-but-unpromoted approvals, in ms. @default 15000 */
  sweepIntervalMs?: number;
  /**
   * How old a decision must be before the sweeper promotes its job, in ms; younger ones are still
   * being promoted by whoever decided.
   * @default 5000
   */
  sweepGraceMs?: number;
  /** Idle time before a pooled MCP client closes, in ms. @default 60000 */
  mcpIdleMs?: number;
  /**
   * Most MCP clients kept open for tool calls; past it the least recently used idle one closes.
   * @default config.mcpPoolSize (64)
   */
  mcpPoolSize?: number;
  /**
   * How long `close()` waits for active runs to finish before releasing them (they resume from
   * their checkpoint on another worker), in ms. Below Compose's 30 s stop grace period, so a
   * stopping container releases its runs itself rather than being killed.
   * @default 25000
   */
  closeTimeoutMs?: number;
}

/** {@link AgentWorkerTuning} with every field filled in. */
export type ResolvedAgentWorkerTuning = Required<AgentWorkerTuning>;

/**
 * Fills in defaults and repairs values that cannot work: non-positive or non-finite numbers fall
 * back to their default, and a stalled interval longer than the lock is clamped, each with a
 * warning.
 */
export function resolveWorkerTuning(
  tuning: AgentWorkerTuning,
  options: {
    config: Pick<Config, 'workerConcurrency' | 'runLockMs' | 'runStalledIntervalMs' | 'runMaxStalled'> &
      Partial<Pick<Config, 'mcpPoolSize'>>;
    logger: Logger;
  },
): ResolvedAgentWorkerTuning {
  // Recovery time is deployment config: with the defaults a run whose worker was kill -9ed is
  // picked up again within lock + stalled interval = 9 s. Each worker renews the locks of all its
  // runs in one call every half lock; a lost lock is safe (writes and tool calls are fenced), only noisy.
  const defaults: ResolvedAgentWorkerTuning = {
    concurrency: options.config.workerConcurrency,
    lockDurationMs: options.config.runLockMs,
    stalledIntervalMs: options.config.runStalledIntervalMs,
    maxStalledCount: options.config.runMaxStalled,
    approvalConcurrency: 16,
    sweepIntervalMs: 15_000,
    sweepGraceMs: 5_000,
    mcpIdleMs: 60_000,
    mcpPoolSize: options.config.mcpPoolSize ?? 64,
    closeTimeoutMs: 25_000,
  };
  const out = { ...defaults };
  for (const key of Object.keys(defaults) as Array<keyof ResolvedAgentWorkerTuning>) {
    const value = tuning[key];
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value <= 0) {
      options.logger.warn({ option: key, value, used: defaults[key] }, 'invalid worker option; using the default');
      continue;
    }
    out[key] =
      key === 'concurrency' || key === 'maxStalledCount' || key === 'approvalConcurrency' || key === 'mcpPoolSize'
        ? Math.floor(value)
        : value;
  }
  if (out.stalledIntervalMs > out.lockDurationMs) {
    options.logger.warn(
      { stalledIntervalMs: out.stalledIntervalMs, lockDurationMs: out.lockDurationMs },
      'stalledIntervalMs is longer than lockDurationMs; clamping it',
    );
    out.stalledIntervalMs = out.lockDurationMs;
  }
  return out;
}
