import {
  APICallError,
  InvalidMessageRoleError,
  InvalidPromptError,
  InvalidToolApprovalError,
  InvalidToolApprovalSignatureError,
  RetryError,
  ToolCallNotFoundForApprovalError,
} from 'ai';
import { DelayedError, UnrecoverableError, WaitingChildrenError, type Job } from 'bullmq';
import { AgentqError, NonRetryableError, RetryLaterError } from '@agentq/shared';

/**
 * The one place this app meets BullMQ's error classes. Business code throws agentq errors (retry
 * meaning as data); the processors pass what they catch through {@link toBullmqError}.
 */

/** The error that tells BullMQ a job parked itself in `waiting-children`. */
export function parkedError(): Error {
  return new WaitingChildrenError();
}

/** Whether `error` is BullMQ's "parked, not failed" signal. */
export function isParkedError(error: unknown): boolean {
  return error instanceof WaitingChildrenError || error instanceof DelayedError;
}

/**
 * Maps an error to what BullMQ should do with the job:
 * - `NonRetryableError` (bad input, unknown provider, missing key) ⇒ `UnrecoverableError`: fail now;
 * - `RetryLaterError` ⇒ the job is moved to delayed for `retryAfterMs`, then `DelayedError`;
 * - a model provider error that will not go away (4xx other than 408/409/429) ⇒ `UnrecoverableError`;
 * - a prompt or an approval the model loop refuses (bad messages, a forged or unsigned approval)
 *   ⇒ `UnrecoverableError`: the same messages would be refused again;
 * - anything else (provider outage, Redis) ⇒ rethrown, so BullMQ retries with the job's backoff.
 */
export async function toBullmqError(error: unknown, context: { job: Job; token?: string }): Promise<Error> {
  if (isParkedError(error) || error instanceof UnrecoverableError) return error as Error;
  if (NonRetryableError.isInstance(error)) {
    return withCode(new UnrecoverableError(error.message), error);
  }
  if (RetryLaterError.isInstance(error) && context.token) {
    await context.job.moveToDelayed(Date.now() + error.retryAfterMs, context.token);
    return new DelayedError(error.message);
  }
  if (isRefusedPrompt(error)) {
    return Object.assign(
      new UnrecoverableError(`The model loop refused the run's messages: ${(error as Error).message}`),
      {
        code: 'VALIDATION',
      },
    );
  }
  const providerError = RetryError.isInstance(error) ? error.lastError : error;
  if (APICallError.isInstance(providerError) && !providerError.isRetryable) {
    const status = providerError.statusCode ?? 0;
    if (status >= 400 && status < 500) {
      return new UnrecoverableError(`Model provider rejected the request (${status}): ${providerError.message}`);
    }
  }
  if (AgentqError.isInstance(error)) return error;
  return error instanceof Error ? error : new Error(String(error));
}

function isRefusedPrompt(error: unknown): boolean {
  return (
    InvalidPromptError.isInstance(error) ||
    InvalidMessageRoleError.isInstance(error) ||
    InvalidToolApprovalError.isInstance(error) ||
    ToolCallNotFoundForApprovalError.isInstance(error) ||
    InvalidToolApprovalSignatureError.isInstance(error)
  );
}

function withCode(target: UnrecoverableError, source: AgentqError): UnrecoverableError {
  // Keep the machine-readable code visible on the failed job (`failedReason` has only the text).
  Object.assign(target, { code: source.code, field: source.field });
  return target;
}
