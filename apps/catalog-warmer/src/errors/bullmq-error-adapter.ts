import { NonRetryableError, RetryLaterError } from '@agentq/shared';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';

/**
 * The warmer's one bridge from agentq's retry semantics to BullMQ's: business code throws
 * `NonRetryableError` / `RetryLaterError` and never imports BullMQ's error classes.
 *
 * - `NonRetryableError` (bad payload, unknown server, corrupt definition, missing secret) becomes
 *   `UnrecoverableError`: the job fails once and is never retried. Its `code` is kept in the
 *   message prefix so that it shows in Bull Board and `job.failedReason`.
 * - `RetryLaterError` (for example the server's refresh lock is held by another warmer) moves the
 *   job back to delayed for `retryAfterMs` and throws `DelayedError`, which BullMQ does not count
 *   as a failed attempt: the request waits, it is never lost.
 */
export async function withBullmqErrors<T>(job: Job, token: string | undefined, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (RetryLaterError.isInstance(error)) {
      await job.moveToDelayed(Date.now() + error.retryAfterMs, token);
      throw new DelayedError(error.message);
    }
    if (NonRetryableError.isInstance(error)) {
      const unrecoverable = new UnrecoverableError(`${error.code}: ${error.message}`);
      unrecoverable.cause = error;
      throw unrecoverable;
    }
    throw error;
  }
}
