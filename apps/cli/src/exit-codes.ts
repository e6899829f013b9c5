import { AgentqError } from '@agentq/shared';

/**
 * Exit codes of `agentq`, stable for scripts:
 * - 0 success;
 * - 1 the thing ran and failed (a run failed, an unexpected error);
 * - 2 usage or invalid input (bad option, bad spec, bad config);
 * - 3 not found;
 * - 4 conflict (already decided, already exists, wrong state);
 * - 5 Redis or the API is unreachable;
 * - 6 timed out waiting.
 */
export const EXIT_CODES = {
  ok: 0,
  failed: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  unavailable: 5,
  timeout: 6,
} as const;

const byCode: Record<string, number> = {
  VALIDATION: EXIT_CODES.usage,
  CONFIG_INVALID: EXIT_CODES.usage,
  IMPORT_INVALID: EXIT_CODES.usage,
  INVALID_JSON: EXIT_CODES.usage,
  USAGE: EXIT_CODES.usage,
  FORBIDDEN: EXIT_CODES.usage,
  NOT_FOUND: EXIT_CODES.notFound,
  CONFLICT: EXIT_CODES.conflict,
  ALREADY_DECIDED: EXIT_CODES.conflict,
  EXPIRED: EXIT_CODES.conflict,
  UNAVAILABLE: EXIT_CODES.unavailable,
  REDIS_UNAVAILABLE: EXIT_CODES.unavailable,
  TIMEOUT: EXIT_CODES.timeout,
  RUN_FAILED: EXIT_CODES.failed,
};

/** The exit code for an error. */
export function exitCodeFor(error: unknown): number {
  if (AgentqError.isInstance(error)) return byCode[error.code] ?? EXIT_CODES.failed;
  if (isRedisDown(error)) return EXIT_CODES.unavailable;
  return EXIT_CODES.failed;
}

/** Whether an error means Redis cannot be reached. */
export function isRedisDown(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return /ECONNREFUSED|Connection is closed|enableOfflineQueue|MaxRetriesPerRequest|did not become ready|ENOTFOUND|EHOSTUNREACH/i.test(
    message,
  );
}
