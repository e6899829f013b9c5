import type { ErrorCode } from './error-codes.js';

const marker = Symbol.for('agentq.error');

/** Options accepted by every agentq error. */
export interface AgentqErrorOptions {
  /** Stable, machine-readable code from `ERROR_CODES`, for example `VALIDATION` or `NOT_FOUND`. */
  code: ErrorCode;
  /** Human-readable explanation. */
  message: string;
  /** Dotted path of the offending input field, when one is to blame. */
  field?: string;
  /** The underlying error, if any. */
  cause?: unknown;
}

/**
 * Base class of every error agentq throws on purpose.
 *
 * `isInstance` checks a `Symbol.for` marker instead of the prototype chain, so it still works when
 * two copies of this package end up in one process.
 */
export class AgentqError extends Error {
  private readonly [marker] = true;
  readonly code: ErrorCode;
  readonly field: string | undefined;

  constructor(options: AgentqErrorOptions) {
    super(options.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AgentqError';
    this.code = options.code;
    this.field = options.field;
  }

  static isInstance(error: unknown): error is AgentqError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
