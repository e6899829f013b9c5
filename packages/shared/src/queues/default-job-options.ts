/**
 * Producer-side job defaults, shared so that every producer (client, API, CLI, schedules) enqueues
 * runs the same way.
 */
export function defaultRunJobOptions(options: { attempts: number }) {
  return {
    attempts: options.attempts,
    // Only infrastructure failures (model provider, Redis) reach BullMQ's retry; tool failures are
    // data and invalid input is unrecoverable, so backoff is sized for provider outages.
    backoff: { type: 'exponential' as const, delay: 2_000 },
    removeOnComplete: { age: 7 * 24 * 3600, count: 10_000 },
    removeOnFail: { age: 30 * 24 * 3600 },
  };
}

/** Defaults for catalog refresh jobs. Failures are recorded in the status key, not retried here. */
export const refreshJobOptions = {
  attempts: 1,
  removeOnComplete: { age: 3600, count: 1_000 },
  removeOnFail: { age: 24 * 3600, count: 1_000 },
} as const;

/**
 * Defaults for `kb-ingest` jobs. A failed read (a URL down, Redis gone) retries with backoff; a bad
 * payload or an unreadable source fails once. The last good version stays current either way.
 */
export const kbIngestJobOptions = {
  attempts: 3,
  backoff: { type: 'exponential' as const, delay: 2_000 },
  removeOnComplete: { age: 24 * 3600, count: 1_000 },
  removeOnFail: { age: 7 * 24 * 3600, count: 1_000 },
} as const;
