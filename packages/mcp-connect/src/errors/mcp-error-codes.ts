import type { ErrorCode } from '@agentq/shared';

/**
 * Every code the MCP connection layer throws, for both roles. The warmer records them in a
 * server's status; the worker hands them to the model as tool errors. `PRIVATE_ADDRESS`,
 * `INVALID_URL` (the fetch-target guard) and `SECRET_MISSING` come from `@agentq/shared` and pass
 * through unchanged.
 */
export const MCP_ERROR_CODES = {
  /** The server could not be reached or did not complete `initialize`. */
  connectFailed: 'MCP_CONNECT_FAILED',
  /** An HTTP server answered 401 (or 403 without an OAuth error): it needs authorization. */
  authRequired: 'MCP_AUTH_REQUIRED',
  /** An HTTP server refused with an OAuth `error` (`invalid_token`, `insufficient_scope`, ...). */
  authFailed: 'MCP_AUTH_FAILED',
  /** Connecting (spawn or HTTP, plus `initialize`) took longer than `timeouts.connectMs`. */
  connectTimeout: 'MCP_CONNECT_TIMEOUT',
  /** `tools/list` failed, or paged forever. */
  listFailed: 'MCP_LIST_FAILED',
  /** The server lists more tools (or bytes) than the caller takes (`AGENTQ_MAX_TOOLS_PER_SERVER`). */
  listTooLarge: 'MCP_LIST_TOO_LARGE',
  /** The whole tool list took longer than `timeouts.listMs`. */
  listTimeout: 'MCP_LIST_TIMEOUT',
  /** `tools/call` failed: a JSON-RPC error answer, or a transport failure. */
  callFailed: 'MCP_CALL_FAILED',
  /** One message answering `tools/call` ran past the caller's message cap; the connection closed. */
  resultTooLarge: 'MCP_RESULT_TOO_LARGE',
  /** `tools/call` took longer than `timeouts.callMs`. */
  callTimeout: 'MCP_CALL_TIMEOUT',
  /** The connection closed while a request was in flight. */
  transportClosed: 'MCP_TRANSPORT_CLOSED',
} as const satisfies Record<string, ErrorCode>;

/** One of {@link MCP_ERROR_CODES}. */
export type McpErrorCode = (typeof MCP_ERROR_CODES)[keyof typeof MCP_ERROR_CODES];
