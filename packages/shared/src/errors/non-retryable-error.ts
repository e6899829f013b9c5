import { AgentqError, type AgentqErrorOptions } from './agentq-error.js';

const marker = Symbol.for('agentq.error.non-retryable');

/**
 * A failure that will not go away by trying again: bad input, an unknown server, a missing secret.
 * `toBullmqError` maps it to BullMQ's `UnrecoverableError` whatever its code, so the job fails once.
 */
export class NonRetryableError extends AgentqError {
  private readonly [marker] = true;

  constructor(options: AgentqErrorOptions) {
    super(options);
    this.name = 'NonRetryableError';
  }

  static override isInstance(error: unknown): error is NonRetryableError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
