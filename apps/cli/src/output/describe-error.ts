import { AgentqError, ValidationError } from '@agentq/shared';
import { isRedisDown } from '../exit-codes.js';

/**
 * One or a few lines for the terminal: the message, its code and field, never a stack trace.
 * Unexpected errors say so, so that a bug is not mistaken for bad input.
 */
export function describeError(error: unknown, context: { redisUrl?: string } = {}): string {
  if (error instanceof ValidationError && error.issues.length > 1) {
    const lines = error.issues.map((issue) => `  - ${issue.field || '(root)'}: ${issue.message}`);
    return [`error [${error.code}]: ${error.message.split(':')[0]}`, ...lines].join('\n');
  }
  if (AgentqError.isInstance(error)) {
    const field = error.field ? ` (field: ${error.field})` : '';
    return `error [${error.code}]: ${error.message}${field}`;
  }
  if ((error as { code?: unknown }).code === 'EADDRINUSE') {
    return `error [PORT_IN_USE]: ${(error as Error).message}. Pick another port with --port or AGENTQ_API_PORT.`;
  }
  if (isRedisDown(error)) {
    return `error [REDIS_UNAVAILABLE]: cannot reach Redis${context.redisUrl ? ` at ${redact(context.redisUrl)}` : ''}. Start Redis or set REDIS_URL.`;
  }
  const message = error instanceof Error ? error.message : String(error);
  return `error: ${message}`;
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]*):([^@/]+)@/, '//$1:***@');
}
