import type { ErrorCode } from '@agentq/shared';

/** Error codes of `web_fetch`, besides the guard's `INVALID_URL` and `PRIVATE_ADDRESS`. */
export const WEB_FETCH_ERROR_CODES = {
  /** The page could not be fetched: a network error or an HTTP error status. */
  failed: 'WEB_FETCH_FAILED',
  /** The page took longer than the time cap. */
  timeout: 'WEB_FETCH_TIMEOUT',
  /** The body is bigger than the byte cap. */
  tooLarge: 'WEB_FETCH_TOO_LARGE',
  /** The content type is not one `web_fetch` reads. */
  contentType: 'WEB_FETCH_CONTENT_TYPE',
  /** The HTML could not be turned into Markdown (its conversion thread failed). */
  conversion: 'WEB_FETCH_CONVERSION',
} as const satisfies Record<string, ErrorCode>;
