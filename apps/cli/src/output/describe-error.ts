import { AgentqError, maskRedisUrl, ValidationError } from '@agentq/shared';
import { isRedisDown } from '../exit-codes.js';

/**
 * One or a few lines for the terminal: the message, its code and field, never a stack trace.
 * Unexpected errors say so, so that a bug is not mistaken for bad input.
 */
export function describeError(
  error: unknown,
  context: { redisUrl?: string; clusterNodes?: string; prefix?: string } = {},
): string {
  if (error instanceof ValidationError && error.issues.length > 1) {
    const lines = error.issues.map((issue) => `  - ${issue.field || '(root)'}: ${issue.message}`);
    return [`error [${error.code}]: ${error.message.split(':')[0]}`, ...lines].join('\n');
  }
  // Before the coded errors: agentq's own wait for Redis throws a coded UNAVAILABLE, and the line
  // names the Redis it tried either way.
  if (isRedisDown(error, context)) {
    return `error [REDIS_UNAVAILABLE]: cannot reach Redis${context.redisUrl ? ` at ${maskRedisUrl(context.redisUrl)}` : ''}. Start Redis or set REDIS_URL.`;
  }
  if (AgentqError.isInstance(error)) {
    const field = error.field ? ` (field: ${error.field})` : '';
    const line = `error [${error.code}]: ${error.message}${field}`;
    // Runs and approvals live in one Redis under one prefix: a terminal pointed at another one
    // (a private dev Redis, another prefix) sees none of them.
    if (error.code === 'NOT_FOUND' && (error.field === 'runId' || error.field === 'approvalId')) {
      const url = maskRedisUrl(context.redisUrl || 'redis://127.0.0.1:6379');
      return `${line}\n  (looked in ${url}, prefix ${context.prefix || 'agentq'}; if it was enqueued elsewhere, this may be the wrong Redis: set REDIS_URL and AGENTQ_PREFIX as \`agentq dev\` printed them)`;
    }
    return line;
  }
  if ((error as { code?: unknown }).code === 'EADDRINUSE') {
    return `error [PORT_IN_USE]: ${(error as Error).message}. Pick another port with --port or AGENTQ_API_PORT.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${message}`;
}
