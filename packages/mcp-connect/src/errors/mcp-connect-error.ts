import { AgentqError } from '@agentq/shared';
import type { McpErrorCode } from './mcp-error-codes.js';

const marker = Symbol.for('agentq.mcp-connect-error');

/** Options of {@link McpConnectError}. */
export interface McpConnectErrorOptions {
  code: McpErrorCode;
  /** Already masked: it reaches logs, statuses, checkpoints and the model. */
  message: string;
  /** Whether the connection should be dropped: true unless the server answered with an error. */
  connectionBroken: boolean;
  /** Only agentq's own errors: a foreign cause can quote resolved secrets. */
  cause?: AgentqError;
}

/**
 * A failure to reach an MCP server or to get an answer from it. Callers branch on `code` and on
 * `connectionBroken` (a pool evicts the client when it is set), never on the message.
 */
export class McpConnectError extends AgentqError {
  private readonly [marker] = true;
  declare readonly code: McpErrorCode;
  readonly connectionBroken: boolean;

  constructor(options: McpConnectErrorOptions) {
    super({ code: options.code, message: options.message, cause: options.cause });
    this.name = 'McpConnectError';
    this.connectionBroken = options.connectionBroken;
  }

  static override isInstance(error: unknown): error is McpConnectError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
