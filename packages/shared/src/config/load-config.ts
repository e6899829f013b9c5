import { ValidationError, type ValidationIssue } from '../errors/validation-error.js';
import { configVariables } from './config-variables.js';
import { keyPrefix } from './key-prefix.js';
import { defaultRunShardCount } from './run-shard-count.js';
import { AgentqError } from '../errors/agentq-error.js';
import { serverPolicyFromEnv } from '../servers/server-policy.js';
import { DEFAULT_TOKEN_NAME, type ApiToken } from './parse-api-tokens.js';

/** The fully defaulted, validated configuration of an agentq process. */
export interface Config {
  redisUrl: string;
  /** `AGENTQ_PREFIX` as configured. */
  prefix: string;
  /**
   * The prefix every queue and key actually uses: `prefix`, hash-tagged (`{agentq}`) in cluster
   * mode. Pass this to BullMQ and to `keyNames`.
   */
  keyPrefix: string;
  /** Whether Redis is a cluster: `AGENTQ_REDIS_CLUSTER`, `AGENTQ_REDIS_CLUSTER_NODES` or a `redis+cluster://` URL. */
  cluster: boolean;
  /** `AGENTQ_REDIS_CLUSTER_NODES`, parsed. */
  clusterNodes: Array<{ host: string; port: number }> | undefined;
  /** `AGENTQ_RUN_SHARDS`, defaulted: 1 on a single Redis, 16 on a cluster. */
  runShards: number;
  /** `AGENTQ_WORKER_SHARDS`: the shard numbers this worker consumes; `undefined` for all. */
  workerShards: number[] | undefined;
  /** `AGENTQ_MCP_POOL_SIZE`. */
  mcpPoolSize: number;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  apiToken: string | undefined;
  /** `AGENTQ_SECRET_KEY`: base64 of the 32-byte key that encrypts stored OAuth tokens. */
  secretKey: string | undefined;
  /** Named, scoped tokens of `AGENTQ_API_TOKENS`. */
  apiTokens: ApiToken[] | undefined;
  loginRateLimit: number;
  apiHost: string;
  apiPort: number;
  /** `AGENTQ_API_URL`, without a trailing slash; see {@link apiBaseUrlOf}. */
  apiUrl: string | undefined;
  /** `AGENTQ_OAUTH_CLIENT_METADATA_URL`: the client id used where an authorization server supports it. */
  oauthClientMetadataUrl: string | undefined;
  /** `AGENTQ_WARMER_HEALTH_PORT`: the warmer's health listener; unset means none. */
  warmerHealthPort: number | undefined;
  /** `AGENTQ_WORKER_HEALTH_PORT`: the worker's health listener; unset means none. */
  workerHealthPort: number | undefined;
  /** `AGENTQ_HEALTH_HOST`: where both health listeners bind. */
  healthHost: string;
  serversFile: string;
  approvalTimeoutMs: number;
  workerConcurrency: number;
  warmerConcurrency: number;
  watchLeaseMs: number;
  runAttempts: number;
  /** `AGENTQ_RUN_LOCK_MS`. */
  runLockMs: number;
  /** `AGENTQ_RUN_STALLED_INTERVAL_MS`. */
  runStalledIntervalMs: number;
  /** `AGENTQ_RUN_MAX_STALLED`. */
  runMaxStalled: number;
  defaultModel: string;
  openaiCompatibleBaseUrl: string | undefined;
  openaiCompatibleApiKey: string | undefined;
  openaiApiKey: string | undefined;
  /** `AGENTQ_OPENAI_BASE_URL`: where `openai:*` requests go; unset, the SDK default. */
  openaiBaseUrl: string | undefined;
  anthropicApiKey: string | undefined;
  /** `AGENTQ_ANTHROPIC_BASE_URL`: where `anthropic:*` requests go; unset, the SDK default. */
  anthropicBaseUrl: string | undefined;
  /** `AGENTQ_EMBEDDING_MODEL`: `openai:<model>` or `openai-compatible:<model>`; unset means lexical search. */
  embeddingModel: string | undefined;
  /** `AGENTQ_EMBEDDING_BASE_URL`. */
  embeddingBaseUrl: string | undefined;
  /** `AGENTQ_SEARCH_ENRICH_MODEL`: `openai:`, `openai-compatible:` or `anthropic:<model>`; unset, no enrichment. */
  searchEnrichModel: string | undefined;
  /** `AGENTQ_SEARCH_ENRICH_MAX_PER_SERVER_HOUR`: model calls one server may cost per hour, over all warmers. */
  searchEnrichMaxPerServerHour: number;
  /** `AGENTQ_SEARCH_ENRICH_EXAMPLES`. */
  searchEnrichExamples: number;
  /** `AGENTQ_SEARCH_ENRICH_MAX_TOOLS`. */
  searchEnrichMaxTools: number;
  allowPrivateFetch: boolean;
  /** `AGENTQ_FETCH_ALLOW_HOSTS`, normalized: pass as `allowHosts` to `createGuardedFetch`. */
  fetchAllowHosts: string[] | undefined;
  /** `AGENTQ_WEB_FETCH_ALLOW_HOSTS`, normalized: `web_fetch`'s own allow-list; unset, none. */
  webFetchAllowHosts: string[] | undefined;
  /** `AGENTQ_ALLOW_STDIO_FROM_API`; the server policy itself comes from `serverPolicyFromEnv`. */
  allowStdioFromApi: boolean;
  /** `AGENTQ_STDIO_COMMANDS`, as written. */
  stdioCommands: string;
  /** `AGENTQ_SECRET_NAMES`, as written. */
  secretNames: string;
  /** `AGENTQ_SECRET_HOSTS`, as written. */
  secretHosts: string;
  /** `AGENTQ_MAX_INPUT_BYTES`: the run spec's input size limit. */
  maxInputBytes: number;
  /** `AGENTQ_INPUT_DOWNLOAD_MAX_BYTES`: most bytes one run attempt downloads for its messages' URLs. */
  inputDownloadMaxBytes: number;
  /** `AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS`: time one download of a message's URL may take. */
  inputDownloadTimeoutMs: number;
  /** `AGENTQ_MAX_MCP_SERVERS`: the most servers a run spec may name. */
  maxMcpServers: number;
  /** `AGENTQ_MAX_TOOLS_PER_SERVER`: the most tools a server's cached list may hold. */
  maxToolsPerServer: number;
  /** `AGENTQ_MAX_CATALOG_ENTRY_BYTES`: the largest cached list of one server, in bytes of JSON. */
  maxCatalogEntryBytes: number;
  /** `AGENTQ_MAX_TOOL_DESCRIPTION_CHARS`: longer tool descriptions are cut with a note. */
  maxToolDescriptionChars: number;
  /** `AGENTQ_MAX_SCHEMA_DEPTH`: a tool whose input schema nests deeper is left out. */
  maxSchemaDepth: number;
  /** `AGENTQ_MAX_TOOL_CALLS_PER_STEP`: calls past it in one model step are refused, not made. */
  maxToolCallsPerStep: number;
  /** `AGENTQ_TOOL_RESULT_MAX_BYTES`: bytes of text one MCP tool result keeps; the rest is cut with a note. */
  toolResultMaxBytes: number;
  /** `AGENTQ_MAX_MODEL_RESPONSE_BYTES`: the largest answer one model call may send; past it the run fails. */
  maxModelResponseBytes: number;
  /** `AGENTQ_CODE_MODE`: whether assistants may turn on `tool_exec` (code mode). */
  codeMode: 'off' | 'allowed';
  /** `AGENTQ_CODE_MODE_TIMEOUT_MS`. */
  codeModeTimeoutMs: number;
  /** `AGENTQ_CODE_MODE_MAX_BLOCKING_MS`. */
  codeModeMaxBlockingMs: number;
  /** `AGENTQ_CODE_MODE_MAX_CPU_MS`. */
  codeModeMaxCpuMs: number;
  /** `AGENTQ_CODE_MODE_MEMORY_LIMIT_BYTES`. */
  codeModeMemoryLimitBytes: number;
  /** `AGENTQ_CODE_MODE_MAX_STACK_BYTES`. */
  codeModeMaxStackBytes: number;
  /** `AGENTQ_CODE_MODE_MAX_TOOL_CALLS`. */
  codeModeMaxToolCalls: number;
  /** `AGENTQ_CODE_MODE_MAX_OUTPUT_BYTES`. */
  codeModeMaxOutputBytes: number;
  /** `AGENTQ_CODE_MODE_MAX_LOG_BYTES`. */
  codeModeMaxLogBytes: number;
  /** `AGENTQ_CODE_MODE_MAX_TOOL_RESULT_BYTES`. */
  codeModeMaxToolResultBytes: number;
  /** `AGENTQ_SEARXNG_URL`: the SearXNG instance of `web_search`. */
  searxngUrl: string | undefined;
  /** `AGENTQ_WEB_SEARCH_PROVIDER`: the default `web_search` provider. */
  webSearchProvider: 'searxng' | 'brave' | 'tavily' | undefined;
  /** `AGENTQ_BRAVE_SEARCH_URL`. */
  braveSearchUrl: string;
  /** `AGENTQ_BRAVE_API_KEY`: a `${NAME}` placeholder, never the key itself. */
  braveApiKey: string;
  /** `AGENTQ_TAVILY_URL`. */
  tavilyUrl: string;
  /** `AGENTQ_TAVILY_API_KEY`: a `${NAME}` placeholder, never the key itself. */
  tavilyApiKey: string;
  /** `AGENTQ_WEB_SEARCH_TIMEOUT_MS`. */
  webSearchTimeoutMs: number;
  /** `AGENTQ_WEB_SEARCH_MAX_BYTES`. */
  webSearchMaxBytes: number;
  /** `AGENTQ_EMBEDDING_MAX_BYTES`. */
  embeddingMaxBytes: number;
  /** `AGENTQ_ERROR_BODY_MAX_BYTES`. */
  errorBodyMaxBytes: number;
  /** `AGENTQ_WEB_FETCH_MAX_BYTES`. */
  webFetchMaxBytes: number;
  /** `AGENTQ_WEB_FETCH_TIMEOUT_MS`. */
  webFetchTimeoutMs: number;
  /** `AGENTQ_WEB_FETCH_MAX_TOKENS`. */
  webFetchMaxTokens: number;
  /** `AGENTQ_INDEXER_CONCURRENCY`. */
  indexerConcurrency: number;
  /** `AGENTQ_INDEXER_LOCK_MS`. */
  indexerLockMs: number;
  /** `AGENTQ_KB_FILE_ROOT`: where API callers may point file sources; unset, nowhere. */
  kbFileRoot: string | undefined;
  /** `AGENTQ_KB_MAX_SOURCE_BYTES`. */
  kbMaxSourceBytes: number;
  /** `AGENTQ_TRACE_ARGUMENTS`: tool arguments, prompts and outputs may become span attributes. */
  traceArguments: boolean;
}

/**
 * Reads and validates agentq's configuration from an environment. Every bad variable is reported
 * in one `ValidationError` (code `CONFIG_INVALID`), each named with the reason.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const issues: ValidationIssue[] = [];
  const values: Record<string, unknown> = {};
  for (const variable of configVariables) {
    const raw = env[variable.env];
    const text = raw === undefined || raw === '' ? ('default' in variable ? variable.default : undefined) : raw;
    if (text === undefined) {
      values[variable.key] = undefined;
      continue;
    }
    const parsed = variable.schema.safeParse(text);
    if (parsed.success) values[variable.key] = parsed.data;
    else issues.push({ field: variable.env, message: parsed.error.issues[0]?.message ?? 'invalid' });
  }
  if (issues.length === 0) {
    // The bindings have a grammar of their own; a role should refuse to start on a bad one rather
    // than fail every connect later.
    try {
      serverPolicyFromEnv(env);
    } catch (error) {
      if (!AgentqError.isInstance(error)) throw error;
      issues.push({ field: error.field ?? '', message: error.message });
    }
  }
  const named = values.apiTokens as ApiToken[] | undefined;
  if (values.apiToken !== undefined && named?.some((token) => token.name === DEFAULT_TOKEN_NAME)) {
    issues.push({
      field: 'AGENTQ_API_TOKENS',
      message: `the name "${DEFAULT_TOKEN_NAME}" belongs to AGENTQ_API_TOKEN; pick another`,
    });
  }
  if (values.apiToken !== undefined && named?.some((token) => token.token === values.apiToken)) {
    issues.push({ field: 'AGENTQ_API_TOKENS', message: 'an entry reuses the token of AGENTQ_API_TOKEN' });
  }
  if (issues.length > 0) {
    throw new ValidationError({ what: 'configuration', issues, code: 'CONFIG_INVALID' });
  }
  const config = values as unknown as Omit<Config, 'keyPrefix'>;
  const cluster = config.cluster || config.clusterNodes !== undefined || /^rediss?\+cluster:/.test(config.redisUrl);
  const runShards = (values.runShards as number | undefined) ?? defaultRunShardCount(cluster);
  return {
    ...config,
    cluster,
    runShards,
    keyPrefix: keyPrefix({ prefix: config.prefix, cluster }),
  };
}

/** Values of the configuration that are secrets, for log redaction. */
export function secretValuesOf(config: Config): string[] {
  const out: string[] = [];
  for (const variable of configVariables) {
    if (!('secret' in variable) || !variable.secret) continue;
    const value = (config as unknown as Record<string, unknown>)[variable.key];
    if (typeof value === 'string' && value.length >= 6) out.push(value);
    if (Array.isArray(value)) {
      for (const entry of value as Array<{ token?: unknown }>) {
        if (typeof entry.token === 'string' && entry.token.length >= 6) out.push(entry.token);
      }
    }
  }
  return out;
}

/**
 * The API's base URL as the operator reaches it: `AGENTQ_API_URL`, else the listen address and
 * port (a wildcard listen address is reached on 127.0.0.1).
 */
export function apiBaseUrlOf(config: Pick<Config, 'apiUrl' | 'apiHost' | 'apiPort'>): string {
  if (config.apiUrl) return config.apiUrl;
  const host = config.apiHost === '0.0.0.0' || config.apiHost === '::' ? '127.0.0.1' : config.apiHost;
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.apiPort}`;
}
