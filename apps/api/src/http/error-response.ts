import { AgentqError } from '@agentq/shared';

/** The one error body of the HTTP API. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string };
}

const statusByCode: Record<string, number> = {
  VALIDATION: 400,
  INVALID_JSON: 400,
  IMPORT_INVALID: 400,
  UNAUTHORIZED: 401,
  CSRF: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  ALREADY_DECIDED: 409,
  EXPIRED: 410,
  URI_TOO_LONG: 414,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
};

/** An HTTP status and body for any thrown value. Unknown failures never leak their message. */
export function errorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (AgentqError.isInstance(error)) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.field !== undefined && error.field !== '') body.error.field = error.field;
    return { status: statusByCode[error.code] ?? 400, body };
  }
  const fastifyError = error as { statusCode?: number; code?: string; message?: string };
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return unsupportedMediaType();
  if (fastifyError.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    return reply(414, 'URI_TOO_LONG', 'A path parameter is longer than any id the API knows');
  }
  if (fastifyError.code === 'FST_ERR_BAD_URL' || fastifyError.code === 'FST_ERR_INVALID_URL') {
    return reply(400, 'VALIDATION', 'The URL is not valid');
  }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return reply(413, 'PAYLOAD_TOO_LARGE', 'The request body is too large');
  }
  if (
    fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
    fastifyError.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ||
    (fastifyError.statusCode === 400 && error instanceof SyntaxError)
  ) {
    return reply(400, 'VALIDATION', 'The request body is not valid JSON');
  }
  if (fastifyError.statusCode === 404) return reply(404, 'NOT_FOUND', 'No such route');
  if (isRedisUnavailable(error)) return reply(503, 'UNAVAILABLE', 'Redis is not reachable');
  return reply(500, 'INTERNAL', 'Internal error');
}

/** The 415 of a body that is not JSON. */
export function unsupportedMediaType(): { status: number; body: ErrorBody } {
  return reply(415, 'UNSUPPORTED_MEDIA_TYPE', 'Unsupported content type: send application/json');
}

function reply(status: number, code: string, message: string) {
  return { status, body: { error: { code, message } } };
}

function isRedisUnavailable(error: unknown): boolean {
  const message = error instanceof Error ? error.message : '';
  return /Connection is closed|enableOfflineQueue|ECONNREFUSED|MaxRetriesPerRequest|Reached the max retries/i.test(
    message,
  );
}
