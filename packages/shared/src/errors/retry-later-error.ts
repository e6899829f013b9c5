import { AgentqError } from './agentq-error.js';
import type { ErrorCode } from './error-codes.js';

const marker = Symbol.for('agentq.error.retry-later');

/** Options of {@link RetryLaterError}. */
export interface RetryLaterErrorOptions {
  message: string;
  /** How long to wait before the next attempt. */
  retryAfterMs: number;
  /** @default 'RETRY_LATER' */
  code?: ErrorCode;
  cause?: unknown;
}

/**
 * A transient failure with a known wait: a rate limit, a lease held by someone else.
 * `toBullmqError` maps it to a BullMQ delay, which does not count as a failed attempt.
 */
export class RetryLaterError extends AgentqError {
  private readonly [marker] = true;
  readonly retryAfterMs: number;

  constructor(options: RetryLaterErrorOptions) {
    super({ code: options.code ?? 'RETRY_LATER', message: options.message, cause: options.cause });
    this.name = 'RetryLaterError';
    this.retryAfterMs = Math.max(0, Math.round(options.retryAfterMs));
  }

  static override isInstance(error: unknown): error is RetryLaterError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
