import { AgentqError, ERROR_CODES, errorCodeInfo, type ErrorCode } from '@agentq/shared';

/** The one error body of the HTTP API. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; field?: string };
}

/** The log message of a failure {@link errorResponse} marks `unexpected`: a bug to look into. */
export const UNEXPECTED_ERROR_LOG = 'unexpected error (a bug): it has no code from ERROR_CODES';

/** What {@link errorResponse} answers: the status, the body, and whether the failure is a bug. */
export interface ErrorResponse {
  status: number;
  body: ErrorBody;
  /**
   * The error was not one agentq throws on purpose with a code of `ERROR_CODES`: it is answered
   * `500 INTERNAL` without its message, and the caller logs it as a bug.
   */
  unexpected?: true;
}

/**
 * An HTTP status and body for any thrown value. An agentq error gets the status `ERROR_CODES`
 * gives its code; anything else (a plain `Error`, a code missing from the table) is a 500 whose
 * message never leaks.
 */
export function errorResponse(error: unknown): ErrorResponse {
  if (AgentqError.isInstance(error)) {
    const info = errorCodeInfo(error.code);
    if (!info) return { ...reply('INTERNAL', 'Internal error'), unexpected: true };
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.field !== undefined && error.field !== '') body.error.field = error.field;
    return { status: info.status, body };
  }
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupportedMediaType();
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply('URI_TOO_LONG', 'A path parameter is longer than any id the API knows');
  }
  if (fastifyError.code === 'FST_ERR_BAD_URL' || fastifyError.code === 'FST_ERR_INVALID_URL') {
    return reply('VALIDATION', 'The URL is not valid');
  }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply('PAYLOAD_TOO_LARGE', 'The request body is too large');
  }
  if (
    fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    (fastifyError.statusCode === 400 && error instanceof SyntaxError)
  ) {
    return reply('INVALID_JSON', 'The request body is not valid JSON');
  }
  if (fastifyError.statusCode === 404) return reply('NOT_FOUND', 'No such route');
  if (isRedisUnavailable(error)) return reply('UNAVAILABLE', 'Redis is not reachable');
  return { ...reply('INTERNAL', 'Internal error'), unexpected: true };
}

/** The 415 of a body that is not JSON. */
export function unsupportedMediaType(): ErrorResponse {
  return reply('UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: send application/json');
}

function reply(code: ErrorCode, message: string): ErrorResponse {
  return { status: ERROR_CODES[code].status, body: { error: { code, message } } };
}

/**
 * ioredis's own failures when Redis is down (agentq's own waits throw a coded `UNAVAILABLE`, which
 * the first branch of {@link errorResponse} answers).
 */
function isRedisUnavailable(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /Connection is closed|enableOfflineQueue|ECONNREFUSED|MaxRetriesPerRequest|Reached the max retries/i.test(
    message,
  );
}
