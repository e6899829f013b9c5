import { NonRetryableError } from '@agentq/shared';
import { UnrecoverableError } from 'bullmq';

/**
 * The indexer's one bridge to BullMQ's error classes. A `NonRetryableError` (bad payload, unknown
 * KB, a source that is refused, too large or unreadable) fails the job once as `UnrecoverableError`,
 * its code kept in front of the message for Bull Board and `failedReason`. Anything else (Redis,
 * a network failure reading a URL) is thrown as is and retried with the job's backoff.
 */
export async function withBullmqErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (!NonRetryableError.isInstance(error)) throw error;
    const unrecoverable = new UnrecoverableError(`${error.code}: ${error.message}`);
    unrecoverable.cause = error;
    throw unrecoverable;
  }
}
