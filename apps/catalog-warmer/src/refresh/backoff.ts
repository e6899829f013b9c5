/** Wait before re-probing a server that answered with an empty list. */
export const EMPTY_BACKOFF_MS = 5 * 60_000;
/** Wait after the first failed refresh; doubles with each further consecutive failure. */
export const FAILURE_BACKOFF_MS = 30_000;
/** Ceiling of the failure backoff, so a server that comes back is noticed within the hour. */
export const MAX_FAILURE_BACKOFF_MS = 60 * 60_000;

/**
 * When background refreshes (`prewarm`, `scheduled`, `first-seen`) may probe a server again after
 * a successful read: 5 minutes later for an empty list, any time for a non-empty one.
 */
export function nextAttemptAfterSuccess(options: { toolCount: number; now: number }): number | undefined {
  return options.toolCount === 0 ? options.now + EMPTY_BACKOFF_MS : undefined;
}

/**
 * When background refreshes may probe a server again after its `failures`-th consecutive failure
 * (1-based): 30 s, then 60 s, 120 s, ... capped at one hour.
 */
export function nextAttemptAfterFailure(options: { failures: number; now: number }): number {
  const exponent = Math.max(0, options.failures - 1);
  const wait = Math.min(MAX_FAILURE_BACKOFF_MS, FAILURE_BACKOFF_MS * 2 ** Math.min(exponent, 20));
  return options.now + wait;
}
