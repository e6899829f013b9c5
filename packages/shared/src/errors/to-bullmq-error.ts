import { DelayedError, UnrecoverableError, WaitingChildrenError, type Job } from 'bullmq';
import { AgentqError } from './agentq-error.js';
import { errorCodeInfo } from './error-codes.js';
import { NonRetryableError } from './non-retryable-error.js';
import { RetryLaterError } from './retry-later-error.js';

/**
 * The one place agentq meets BullMQ's error classes, shared by every role (catalog warmer, agent
 * worker, decisions, indexer). Business code throws agentq errors, whose retry meaning is data:
 * the class (`NonRetryableError`, `RetryLaterError`) or the code's `retryable` in `ERROR_CODES`,
 * the way Temporal's `ApplicationFailure` carries `nonRetryable`.
 */

/** The job being processed, and the lock token BullMQ handed the processor. */
export interface BullmqErrorContext {
  job: Pick<Job, 'moveToDelayed'>;
  /** Without a token a job cannot be moved to delayed; a `RetryLaterError` then retries with backoff. */
  token?: string | undefined;
}

/** The error that tells BullMQ a job parked itself in `waiting-children`. */
export function parkedError(): Error {
  return new WaitingChildrenError();
}

/** Whether `error` is BullMQ's "parked, not failed" signal (waiting for children, or delayed). */
export function isParkedError(error: unknown): boolean {
  return error instanceof WaitingChildrenError || error instanceof DelayedError;
}

/**
 * Whether a job that failed with `error` may be tried again: never for a `NonRetryableError` or an
 * agentq error whose code `ERROR_CODES` marks not retryable; always for a `RetryLaterError` and for
 * anything that is not an agentq error (Redis, the network), which retries with the job's backoff.
 */
export function isRetryable(error: unknown): boolean {
  if (RetryLaterError.isInstance(error)) return true;
  if (NonRetryableError.isInstance(error)) return false;
  if (AgentqError.isInstance(error)) return errorCodeInfo(error.code)?.retryable ?? true;
  return true;
}

/**
 * Maps an error to what BullMQ should do with the job:
 * - BullMQ's own signals (parked, delayed, unrecoverable) pass through;
 * - a `RetryLaterError` moves the job back to delayed for `retryAfterMs` and becomes `DelayedError`,
 *   which BullMQ does not count as a failed attempt;
 * - an error that is not retryable (see {@link isRetryable}) becomes `UnrecoverableError`: the job
 *   fails once. Its message starts with the code (`CODE: message`) so that Bull Board and
 *   `failedReason` show it, and it keeps `code`, `field` and `cause`;
 * - anything else is returned as it is, so BullMQ retries it with the job's backoff.
 */
export async function toBullmqError(error: unknown, context: BullmqErrorContext): Promise<Error> {
  if (isParkedError(error) || error instanceof UnrecoverableError) return error as Error;
  if (RetryLaterError.isInstance(error) && context.token) {
    await context.job.moveToDelayed(Date.now() + error.retryAfterMs, context.token);
    return new DelayedError(error.message);
  }
  if (AgentqError.isInstance(error) && !isRetryable(error)) {
    const unrecoverable = new UnrecoverableError(`${error.code}: ${error.message}`);
    unrecoverable.cause = error;
    return Object.assign(unrecoverable, { code: error.code, field: error.field });
  }
  return error instanceof Error ? error : new Error(String(error));
}

/** Runs a processor body and throws what {@link toBullmqError} makes of its failure. */
export async function withBullmqErrors<T>(context: BullmqErrorContext, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw await toBullmqError(error, context);
  }
}
