/**
 * How long a run has taken, in milliseconds: from when it was enqueued to when it finished (or to
 * `now` while it is still going). Read from the job's own timestamps, so a run that waited for an
 * approval counts the wait, not only its last slice of work.
 */
export function runDurationMs(run: { createdAt: number; finishedAt?: number }, now: number = Date.now()): number {
  return Math.max(0, (run.finishedAt ?? now) - run.createdAt);
}
