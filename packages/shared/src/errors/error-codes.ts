/**
 * Exit codes of the `agentq` CLI, stable for scripts. Each error code names one of them in
 * {@link ERROR_CODES}.
 */
export const EXIT_CODES = {
  /** Success. */
  ok: 0,
  /** The thing ran and failed: a run failed, an unexpected error. */
  failed: 1,
  /** Usage or invalid input: a bad option, spec or configuration. */
  usage: 2,
  /** Not found. */
  notFound: 3,
  /** Conflict: already decided, already exists, wrong state. */
  conflict: 4,
  /** Redis, the API or an upstream is unreachable. */
  unavailable: 5,
  /** Timed out waiting. */
  timeout: 6,
} as const;

/** What one error code means to each edge: REST, the CLI and the job queue. */
export interface ErrorCodeInfo {
  /** HTTP status of the REST answer, 400-599. */
  status: number;
  /** Exit code of the `agentq` CLI, one of {@link EXIT_CODES}. */
  exitCode: number;
  /**
   * Whether a job that fails with this code may be tried again. A `NonRetryableError` is never
   * retried whatever its code, and a `RetryLaterError` always waits and retries.
   */
  retryable: boolean;
  /** One line saying what the code means. */
  description: string;
  /** The canonical code, when this one is an older name kept because a public interface shows it. */
  aliasOf?: string;
}

const { failed, usage, notFound, conflict, unavailable, timeout } = EXIT_CODES;

/**
 * Every error code agentq throws, returns to a model or records, with its HTTP status, CLI exit
 * code and retryability. REST (`errorResponse`), the CLI (`exitCodeFor`) and the job queue
 * (`toBullmqError`) all read this table; a code that is not here is a bug (a 500 over REST).
 * docs/errors.md is generated from it (`npx tsx scripts/error-table.ts --write`).
 */
export const ERROR_CODES = {
  // Input
  VALIDATION: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'An input failed its schema; `field` names the first bad field.',
  },
  INVALID_JSON: { status: 400, exitCode: usage, retryable: false, description: 'A body or file is not valid JSON.' },
  IMPORT_INVALID: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A servers file to import is malformed.',
  },
  CONFIG_INVALID: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'The configuration (environment or file) is invalid.',
  },
  USAGE: { status: 400, exitCode: usage, retryable: false, description: 'A CLI command was called the wrong way.' },
  INVALID_PARAMS: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A tool was called with arguments its input schema refuses.',
  },
  INVALID_URL: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A URL is malformed or uses a scheme that is not allowed.',
  },
  PRIVATE_ADDRESS: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A URL resolves to a private, loopback or link-local address.',
  },
  MODEL_INVALID: { status: 400, exitCode: usage, retryable: false, description: 'A model id is not `provider:model`.' },
  PROVIDER_UNKNOWN: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A model names a provider this deployment does not know.',
  },
  PROVIDER_KEY_MISSING: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'The API key of a model provider is not configured.',
  },
  DEFINITION_INVALID: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A stored server definition does not parse.',
  },
  INVALID_REFRESH_JOB: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A catalog refresh job has a malformed payload.',
  },
  EMBEDDING_CONFIG_INVALID: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'The embedding model configuration is invalid.',
  },
  SEARCH_ENRICH_CONFIG_INVALID: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'The search enrichment model configuration (`AGENTQ_SEARCH_ENRICH_MODEL`) is invalid.',
  },
  SECRET_MISSING: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A secret a server definition names is not set.',
  },
  SECRET_HOST_MISMATCH: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A secret would be sent to a host outside its binding.',
  },
  UNSUPPORTED_SOURCE: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description: 'A knowledge-base source has a kind or format that cannot be read.',
  },
  EMPTY_SOURCE: { status: 400, exitCode: usage, retryable: false, description: 'A knowledge-base source has no text.' },
  // Size and shape of the request
  PAYLOAD_TOO_LARGE: {
    status: 413,
    exitCode: usage,
    retryable: false,
    description: 'A request body or read is bigger than its cap.',
  },
  SOURCE_TOO_LARGE: {
    status: 413,
    exitCode: usage,
    retryable: false,
    description: 'A knowledge-base source is bigger than its cap.',
  },
  URI_TOO_LONG: {
    status: 414,
    exitCode: usage,
    retryable: false,
    description: 'A path parameter is longer than any id the API knows.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    exitCode: usage,
    retryable: false,
    description: 'A request body is not `application/json`.',
  },
  // Who may do what
  UNAUTHORIZED: { status: 401, exitCode: usage, retryable: false, description: 'No valid API token or session.' },
  CSRF: {
    status: 403,
    exitCode: usage,
    retryable: false,
    description: 'A browser form post without a valid CSRF token.',
  },
  FORBIDDEN: {
    status: 403,
    exitCode: usage,
    retryable: false,
    description: 'The caller may not do this (token scope, unreadable path).',
  },
  EXEC_DISABLED: {
    status: 403,
    exitCode: usage,
    retryable: false,
    description: '`tool_exec` is not enabled in this deployment.',
  },
  EXEC_SYNTAX_ERROR: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script does not parse.',
  },
  EXEC_SCRIPT_ERROR: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script threw, or a tool call it made was refused and it did not catch that.',
  },
  EXEC_TIMEOUT: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script ran past its wall time, tool calls included.',
  },
  EXEC_CPU_LIMIT: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script computed too long without a pause, or too long in all.',
  },
  EXEC_MEMORY_LIMIT: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script ran out of its heap or its stack.',
  },
  EXEC_TOOL_CALL_LIMIT: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script made more tool calls than one script may.',
  },
  EXEC_OUTPUT_INVALID: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script returned a value that is not JSON, or too large.',
  },
  EXEC_STALLED: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script awaits something that never happens.',
  },
  EXEC_ABORTED: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description: 'A `tool_exec` script was aborted with its run.',
  },
  EXEC_SANDBOX_FAILED: {
    status: 422,
    exitCode: failed,
    retryable: false,
    description:
      'The sandbox stopped under a `tool_exec` script (another script exceeded its caps, or the worker shut down).',
  },
  KB_NOT_ALLOWED: {
    status: 403,
    exitCode: usage,
    retryable: false,
    description: 'The model named a knowledge base the run may not read.',
  },
  // Not found
  NOT_FOUND: {
    status: 404,
    exitCode: notFound,
    retryable: false,
    description: 'The named run, server, approval, schedule, job or route does not exist.',
  },
  SERVER_NOT_FOUND: {
    status: 404,
    exitCode: notFound,
    retryable: false,
    aliasOf: 'NOT_FOUND',
    description: 'A catalog refresh named a server that does not exist (kept: failed refresh jobs show it).',
  },
  TOOL_NOT_FOUND: {
    status: 404,
    exitCode: notFound,
    retryable: false,
    description: 'A tool name the model used is not in the catalog.',
  },
  // State
  PORT_IN_USE: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'A port agentq is to listen on (the API, a health listener) is taken by another process.',
  },
  CONFLICT: {
    status: 409,
    exitCode: conflict,
    // A job meets CONFLICT when an optimistic write lost a race ("kept changing; try again"):
    // trying again is the cure. A conflict that cannot pass throws NonRetryableError.
    retryable: true,
    description: 'The thing exists already, is in the wrong state, or changed under the write.',
  },
  ALREADY_DECIDED: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'An approval has been decided already.',
  },
  MCP_SERVER_NOT_ENABLED: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'A tool belongs to a server that is disabled.',
  },
  TOOL_NOT_IN_REQUEST: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'The model called a tool the run did not offer.',
  },
  TOOL_NOT_INSPECTED: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: '`tool_invoke` before `tool_inspect` showed the signature.',
  },
  TOOL_NOT_EXECUTABLE: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'A tool has no executor in this worker.',
  },
  TOOL_NEEDS_APPROVAL: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'A tool needs an approval the run does not hold.',
  },
  NO_MCP_CALLER: {
    status: 409,
    exitCode: conflict,
    retryable: false,
    description: 'An MCP tool was registered where no MCP caller exists.',
  },
  LOCK_LOST: {
    status: 409,
    exitCode: conflict,
    retryable: true,
    description: 'A run moved to another worker while this one held it.',
  },
  LEASE_HELD: {
    status: 409,
    exitCode: conflict,
    retryable: true,
    description: 'A lease is held by someone else; try again later.',
  },
  REFRESH_BUSY: {
    status: 409,
    exitCode: conflict,
    retryable: true,
    description: 'A refresh of the same server is already running.',
  },
  EXPIRED: {
    status: 410,
    exitCode: conflict,
    retryable: false,
    description: 'An approval expired before it was decided.',
  },
  // Limits
  RATE_LIMITED: { status: 429, exitCode: failed, retryable: true, description: 'Too many attempts; try again later.' },
  RETRY_LATER: {
    status: 503,
    exitCode: unavailable,
    retryable: true,
    description: 'A transient failure with a known wait.',
  },
  TOOL_CALL_BUDGET_EXCEEDED: {
    status: 429,
    exitCode: failed,
    retryable: false,
    description: 'A model step called more tools than `AGENTQ_MAX_TOOL_CALLS_PER_STEP`.',
  },
  // Failures
  INTERNAL: {
    status: 500,
    exitCode: failed,
    retryable: true,
    description: 'An unexpected failure: a bug, logged with its stack.',
  },
  RUN_FAILED: { status: 500, exitCode: failed, retryable: false, description: 'A run ended in failure.' },
  LISTEN_FAILED: {
    status: 500,
    exitCode: usage,
    retryable: false,
    description:
      "The API or a health listener cannot listen on its host and port (the host does not resolve, is not one of this machine's, or the port needs privileges; a taken port is `PORT_IN_USE`); the message names the variables that set them.",
  },
  MODEL_RESPONSE_TOO_LARGE: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'A model provider sent an answer larger than `AGENTQ_MAX_MODEL_RESPONSE_BYTES`.',
  },
  RUN_STATE_CORRUPT: {
    status: 500,
    exitCode: failed,
    retryable: false,
    description:
      "A record of a run's state in Redis cannot be read, or a key of it holds another type of value (the message names the key). Its checkpoint, an item of its message or step log, or a step's recorded model answer: the run fails instead of starting over and repeating its tools. The request of an approval or elicitation it waits on: a decision or answer is refused, and nothing is recorded.",
  },
  ABORTED: {
    status: 499,
    exitCode: failed,
    retryable: true,
    description: 'The caller stopped waiting (its signal aborted).',
  },
  NOT_IMPLEMENTED: {
    status: 501,
    exitCode: failed,
    retryable: false,
    description: 'The feature is not available in this deployment.',
  },
  WARMER_STOPPING: {
    status: 503,
    exitCode: unavailable,
    retryable: false,
    description: 'A refresh was cut off by the warmer shutting down.',
  },
  POOL_CLOSED: { status: 503, exitCode: unavailable, retryable: true, description: 'The MCP client pool is closing.' },
  // Unavailable
  UNAVAILABLE: {
    status: 503,
    exitCode: unavailable,
    retryable: true,
    description: 'Redis or a needed service cannot be reached (canonical name).',
  },
  REDIS_UNAVAILABLE: {
    status: 503,
    exitCode: unavailable,
    retryable: true,
    aliasOf: 'UNAVAILABLE',
    description: 'Redis cannot be reached (kept: the CLI prints it).',
  },
  SOURCE_UNAVAILABLE: {
    status: 503,
    exitCode: unavailable,
    retryable: true,
    description: 'A knowledge-base source could not be read for now.',
  },
  MCP_SERVER_UNAVAILABLE: {
    status: 503,
    exitCode: unavailable,
    retryable: true,
    description: 'An MCP server named by a run is removed or disabled.',
  },
  KB_UNAVAILABLE: {
    status: 503,
    exitCode: unavailable,
    retryable: false,
    description: 'The worker was started without knowledge bases.',
  },
  WEB_SEARCH_UNAVAILABLE: {
    status: 503,
    exitCode: unavailable,
    retryable: false,
    description: 'No web search provider is configured.',
  },
  // Upstream failures
  MCP_AUTH_REQUIRED: {
    status: 502,
    exitCode: unavailable,
    retryable: false,
    description: 'An MCP server answered 401 (or 403 without details): it needs authorization agentq does not have.',
  },
  MCP_AUTH_FAILED: {
    status: 502,
    exitCode: unavailable,
    retryable: false,
    description: "An MCP server refused agentq's credentials with an OAuth error (`error`, `error_description`).",
  },
  OAUTH_KEY_MISSING: {
    status: 503,
    exitCode: unavailable,
    retryable: false,
    description: 'An MCP server has an `auth` block and this process has no `AGENTQ_SECRET_KEY` to keep its tokens.',
  },
  OAUTH_FLOW_INVALID: {
    status: 400,
    exitCode: usage,
    retryable: false,
    description:
      'An OAuth callback named no started flow: unknown, already used or expired `state`, or an error from the authorization server.',
  },
  MCP_CONNECT_FAILED: {
    status: 502,
    exitCode: unavailable,
    retryable: true,
    description: 'An MCP server could not be reached or did not initialize.',
  },
  MCP_LIST_FAILED: {
    status: 502,
    exitCode: unavailable,
    retryable: true,
    description: 'An MCP server failed `tools/list`.',
  },
  MCP_LIST_TOO_LARGE: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'An MCP server lists more tools or bytes than allowed.',
  },
  MCP_RESULT_TOO_LARGE: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description:
      'An MCP server answered a tool call with one message past the cap derived from `AGENTQ_TOOL_RESULT_MAX_BYTES`; the connection was closed without reading the rest.',
  },
  MCP_CALL_FAILED: { status: 502, exitCode: failed, retryable: true, description: 'An MCP `tools/call` failed.' },
  MCP_TRANSPORT_CLOSED: {
    status: 502,
    exitCode: unavailable,
    retryable: true,
    description: 'An MCP connection closed with a request in flight.',
  },
  MCP_TOOL_ERROR: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'An MCP tool answered with `isError`.',
  },
  MCP_REFRESH_FAILED: {
    status: 502,
    exitCode: failed,
    retryable: true,
    description: 'A catalog refresh failed for a reason with no code of its own.',
  },
  MODEL_REJECTED: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'The model provider refused the request (a 4xx other than 408, 409 or 429).',
  },
  EMBEDDING_TOO_LARGE: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'An embedding answer is bigger than `AGENTQ_EMBEDDING_MAX_BYTES`.',
  },
  WEB_SEARCH_FAILED: {
    status: 502,
    exitCode: failed,
    retryable: true,
    description: 'The web search provider failed or answered badly.',
  },
  WEB_FETCH_FAILED: {
    status: 502,
    exitCode: failed,
    retryable: true,
    description: '`web_fetch` could not fetch the page.',
  },
  INPUT_DOWNLOAD_FAILED: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description:
      "An image or file URL in a run's messages could not be downloaded for good: a refused address, an HTTP error the next attempt would get too (a 4xx other than 408, 425 and 429; 501; 505), or the byte cap.",
  },
  INPUT_DOWNLOAD_UNAVAILABLE: {
    status: 503,
    exitCode: failed,
    retryable: true,
    description:
      "An image or file URL in a run's messages could not be downloaded or checked this time: the host answered 408, 425, 429 or a 5xx other than 501 and 505, the connection failed, or the download or lookup took longer than `AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS`.",
  },
  WEB_FETCH_TOO_LARGE: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'A fetched page is bigger than the byte cap.',
  },
  WEB_FETCH_CONTENT_TYPE: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'A fetched page has a content type `web_fetch` does not read.',
  },
  WEB_FETCH_CONVERSION: {
    status: 502,
    exitCode: failed,
    retryable: false,
    description: 'A fetched page could not be turned into Markdown.',
  },
  // Timeouts
  TIMEOUT: {
    status: 504,
    exitCode: timeout,
    retryable: true,
    description: 'Waiting for a run or a job took longer than allowed.',
  },
  MCP_CONNECT_TIMEOUT: {
    status: 504,
    exitCode: timeout,
    retryable: true,
    description: 'Connecting to an MCP server took longer than allowed.',
  },
  MCP_LIST_TIMEOUT: {
    status: 504,
    exitCode: timeout,
    retryable: true,
    description: 'An MCP `tools/list` took longer than allowed.',
  },
  MCP_CALL_TIMEOUT: {
    status: 504,
    exitCode: timeout,
    retryable: true,
    description: 'An MCP `tools/call` took longer than allowed.',
  },
  WEB_SEARCH_TIMEOUT: {
    status: 504,
    exitCode: timeout,
    retryable: true,
    description: 'The web search provider took longer than allowed.',
  },
  WEB_FETCH_TIMEOUT: {
    status: 504,
    exitCode: timeout,
    retryable: true,
    description: 'A fetched page took longer than allowed.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

/** A code of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Whether `code` is in {@link ERROR_CODES}. */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_CODES, code);
}

/** The table row of `code`, or `undefined` for a code that is not in {@link ERROR_CODES}. */
export function errorCodeInfo(code: unknown): ErrorCodeInfo | undefined {
  return isErrorCode(code) ? ERROR_CODES[code] : undefined;
}
