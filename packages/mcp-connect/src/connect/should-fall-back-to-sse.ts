import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * Whether a failed Streamable HTTP connect should be retried as legacy SSE on the same URL: the
 * server answered the first POST with a 4xx other than 401/403 (typically 404 or 405), which is how
 * the MCP specification says a client recognises an HTTP+SSE-only server. An auth refusal, a 5xx,
 * a timeout or a network error is the same on SSE, so it is not retried.
 */
export function shouldFallBackToSse(error: unknown): boolean {
  if (!(error instanceof StreamableHTTPError) || typeof error.code !== 'number') return false;
  const status = error.code;
  return status >= 400 && status < 500 && status !== 401 && status !== 403;
}
