import { AgentqError, errorCodeInfo, EXIT_CODES } from '@agentq/shared';

/**
 * Exit codes of `agentq`, stable for scripts (docs/errors.md lists the code of each error):
 * - 0 success;
 * - 1 the thing ran and failed (a run failed, an unexpected error);
 * - 2 usage or invalid input (bad option, bad spec, bad config);
 * - 3 not found;
 * - 4 conflict (already decided, already exists, wrong state);
 * - 5 Redis or the API is unreachable;
 * - 6 timed out waiting.
 */
export { EXIT_CODES };

/** The exit code for an error: the one `ERROR_CODES` gives its code, else 5 for Redis down, else 1. */
export function exitCodeFor(error: unknown): number {
  if (AgentqError.isInstance(error)) return errorCodeInfo(error.code)?.exitCode ?? EXIT_CODES.failed;
  if (isRedisDown(error)) return EXIT_CODES.unavailable;
  return EXIT_CODES.failed;
}

/**
 * Whether an error means Redis cannot be reached: a coded `UNAVAILABLE` (agentq's own waits throw
 * it), else one of ioredis's or the resolver's own connection failures.
 */
export function isRedisDown(error: unknown): boolean {
  if (AgentqError.isInstance(error)) return error.code === 'UNAVAILABLE' || error.code === 'REDIS_UNAVAILABLE';
  const message = error instanceof Error ? error.message : String(error);
  return /ECONNREFUSED|Connection is closed|enableOfflineQueue|MaxRetriesPerRequest|ENOTFOUND|EHOSTUNREACH/i.test(
    message,
  );
}
