import { isIP } from 'node:net';
import { z } from 'zod';
import { normalizeHostPattern } from '../net/is-allowed-host.js';
import { modelIdSchema } from '../schemas/run-spec.js';
import { apiTokensSchema } from './parse-api-tokens.js';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const hostPatternList = z.string().transform((text, context) => {
  const patterns: string[] = [];
  for (const entry of text.split(',')) {
    if (entry.trim() === '') continue;
    const pattern = normalizeHostPattern(entry);
    if (pattern === undefined) {
      context.addIssue({
        code: 'custom',
        message: `"${entry.trim().slice(0, 80)}" is not a host name, an IP literal or *.suffix, optionally with :port`,
      });
      return z.NEVER;
    }
    patterns.push(pattern);
  }
  return patterns;
});

const clusterNodeList = z.string().transform((text, context) => {
  const nodes: Array<{ host: string; port: number }> = [];
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const match = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9_.-]+):(\d{1,5})$/.exec(trimmed);
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65535) {
      context.addIssue({ code: 'custom', message: `"${trimmed.slice(0, 80)}" is not host:port` });
      return z.NEVER;
    }
    nodes.push({ host: (match[1] as string).replace(/^\[|\]$/g, ''), port });
  }
  if (nodes.length === 0) {
    context.addIssue({ code: 'custom', message: 'must name at least one host:port' });
    return z.NEVER;
  }
  return nodes;
});

const shardList = z.string().transform((text, context) => {
  const shards = new Set<number>();
  for (const entry of text.split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const match = /^(\d{1,3})(?:-(\d{1,3}))?$/.exec(trimmed);
    const from = Number(match?.[1]);
    const to = match?.[2] === undefined ? from : Number(match[2]);
    if (!match || to < from || to > 255) {
      context.addIssue({ code: 'custom', message: `"${trimmed.slice(0, 40)}" is not a shard number or range (0-255)` });
      return z.NEVER;
    }
    for (let shard = from; shard <= to; shard += 1) shards.add(shard);
  }
  return [...shards].sort((a, b) => a - b);
});

// A model provider's API root. Credentials belong in the provider's key setting, which is redacted
// from logs; a user:password in the URL would not be.
const providerBaseUrl = z
  .url({ protocol: /^https?$/, error: 'must be an http or https URL' })
  .refine((url) => {
    // Runs after a failed URL check too (zod keeps going), so an unparsable value passes here.
    if (!URL.canParse(url)) return true;
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  }, 'must not carry credentials; put the key in the provider key setting')
  .transform((url) => url.replace(/\/+$/, ''));

/**
 * A whole-number setting from `min` (to `max`). A bad value is refused saying what was expected
 * and what it got: `must be a port number from 0 to 65535, got "abc"`.
 */
function wholeNumber(range: { min: number; max?: number; what?: string }) {
  const what = range.what ?? 'a whole number';
  const expected =
    range.max !== undefined
      ? `${what} from ${range.min} to ${range.max}`
      : range.min === 1
        ? `${what} greater than 0`
        : `${what} of at least ${range.min}`;
  return z.string().transform((text, context) => {
    const value = text.trim() === '' ? Number.NaN : Number(text);
    if (Number.isInteger(value) && value >= range.min && (range.max === undefined || value <= range.max)) return value;
    const got = text.length > 40 ? `${text.slice(0, 40)}…` : text;
    context.addIssue({ code: 'custom', message: `must be ${expected}, got "${got}"` });
    return z.NEVER;
  });
}

const positiveInt = wholeNumber({ min: 1 });

/**
 * An address to listen on: an IP address (`0.0.0.0`, `::`), or a host name of valid syntax
 * (letters, digits, `-` and `_` in dot-separated labels), so that a URL or a stray character is
 * refused at start rather than by the listener.
 */
const listenHost = z.string().refine((text) => {
  if (isIP(text) !== 0) return true;
  const name = text.endsWith('.') ? text.slice(0, -1) : text;
  return (
    name.length > 0 &&
    name.length <= 253 &&
    name.split('.').every((label) => /^[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/.test(label))
  );
}, 'must be an IP address (127.0.0.1, ::) or a host name such as localhost');

const port = wholeNumber({ min: 0, max: 65535, what: 'a port number' });

// The code sandbox's stack cap: the interpreter's frames live on the worker thread's own stack.
const stackBytes = wholeNumber({ min: 1, max: 256 * 1024 });

// A setting that names where a secret is rather than holding it: one or more `${NAME}`.
const secretPlaceholder = z
  .string()
  .regex(
    /^(\$\{[A-Za-z_][A-Za-z0-9_]*\})+$/,
    'must be a ${NAME} placeholder, for example ${AGENTQ_SECRET_BRAVE_API_KEY}',
  );

/** One environment variable agentq reads: its schema, default and documentation. */
export interface ConfigVariable {
  env: string;
  key: string;
  schema: z.ZodType;
  default?: string;
  description: string;
  secret?: boolean;
}

/**
 * Every environment variable agentq reads. `loadConfig` validates against this table, and the
 * configuration table in docs/configuration.md is checked against it by a test, so the two cannot drift.
 */
export const configVariables = [
  {
    env: 'REDIS_URL',
    key: 'redisUrl',
    schema: z
      .string()
      .regex(/^rediss?(\+cluster)?:\/\//, 'must start with redis://, rediss://, redis+cluster:// or rediss+cluster://'),
    default: 'redis://127.0.0.1:6379',
    description:
      'Redis connection URL. `redis+cluster://host1:port1,host2:port2` (or `rediss+cluster://`) connects to a Redis Cluster through the listed nodes; with `AGENTQ_REDIS_CLUSTER` any node of the cluster.',
  },
  {
    env: 'AGENTQ_REDIS_CLUSTER_NODES',
    key: 'clusterNodes',
    schema: clusterNodeList,
    description:
      'Comma-separated `host:port` seed nodes of a Redis Cluster. Setting it turns cluster mode on; credentials and TLS still come from `REDIS_URL`.',
  },
  {
    env: 'AGENTQ_PREFIX',
    key: 'prefix',
    schema: z.string().regex(/^[A-Za-z0-9_-]+$/, 'only letters, digits, "-" and "_"'),
    default: 'agentq',
    description: 'Key prefix for every queue and key. Hash-tagged (`{agentq}`) in cluster mode.',
  },
  {
    env: 'AGENTQ_REDIS_CLUSTER',
    key: 'cluster',
    schema: booleanFlag,
    default: 'false',
    description:
      'Connect to a Redis Cluster (also implied by `AGENTQ_REDIS_CLUSTER_NODES` or a `redis+cluster://` URL). Runs, servers and global keys then get hash tags of their own, so the load spreads over the masters.',
  },
  {
    env: 'AGENTQ_RUN_SHARDS',
    key: 'runShards',
    schema: wholeNumber({ min: 1, max: 256 }),
    description:
      'Run shards: each has its own `agent-runs` and `approvals` queues and hash tag; a run’s shard is a hash of its id. Default 1 on a single Redis (key names as before sharding) and 16 on a cluster. Every process of a deployment must use the same value; runs enqueued under an earlier value stay readable and are still consumed.',
  },
  {
    env: 'AGENTQ_WORKER_SHARDS',
    key: 'workerShards',
    schema: shardList,
    description:
      'Run shards this worker consumes, e.g. `0-7` or `0,2,4`. Default: every shard (of the current and of every earlier shard count).',
  },
  {
    env: 'LOG_LEVEL',
    key: 'logLevel',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'pino log level.',
  },
  {
    env: 'AGENTQ_API_TOKEN',
    key: 'apiToken',
    schema: z.string().min(16, 'must be at least 16 characters'),
    description:
      'Bearer token for the HTTP API, Bull Board and the inbox, with every scope; decisions taken with it are recorded as `default`. `agentq api` needs it or `AGENTQ_API_TOKENS`; `agentq dev` generates one when unset.',
    secret: true,
  },
  {
    env: 'AGENTQ_API_TOKENS',
    key: 'apiTokens',
    schema: apiTokensSchema,
    description:
      'Named API tokens with scopes (`runs`, `approvals`, `servers`, `kbs`, `admin`, or `all`): `name:scope,scope=token;name:scope=token`, each token at least 16 characters. The name is recorded as who decided an approval.',
    secret: true,
  },
  {
    env: 'AGENTQ_LOGIN_RATE_LIMIT',
    key: 'loginRateLimit',
    schema: positiveInt,
    default: '10',
    description:
      'Login attempts at `/admin/login` one client address may make per minute; more answer 429 `RATE_LIMITED`.',
  },
  {
    env: 'AGENTQ_API_HOST',
    key: 'apiHost',
    schema: listenHost,
    default: '127.0.0.1',
    description: 'Address the API listens on.',
  },
  {
    env: 'AGENTQ_API_PORT',
    key: 'apiPort',
    schema: port,
    default: '3000',
    description: 'Port the API listens on (0 picks a free port).',
  },
  {
    env: 'AGENTQ_API_URL',
    key: 'apiUrl',
    schema: z
      .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
      .transform((url) => url.replace(/\/+$/, '')),
    description:
      "Base URL of the API as the operator reaches it, for the run page links the CLI prints (`agentq run`, `agentq status`) and the OAuth callback of the API's authorization-code flows (`/admin/oauth/callback`). Unset: `http://<AGENTQ_API_HOST>:<AGENTQ_API_PORT>` (127.0.0.1 when the API listens on every address).",
  },
  {
    env: 'AGENTQ_OAUTH_CLIENT_METADATA_URL',
    key: 'oauthClientMetadataUrl',
    schema: z
      .url({ protocol: /^https$/, error: 'must be an https URL' })
      .refine((url) => !URL.canParse(url) || new URL(url).pathname !== '/', 'must have a path (not the site root)')
      .refine((url) => !URL.canParse(url) || new URL(url).hash === '', 'must not have a #fragment'),
    description:
      "The https URL of agentq's OAuth client ID metadata document. An authorization server that advertises `client_id_metadata_document_supported` then gets this URL as the client id of an `authorization_code` server without a `clientId`, instead of a dynamic registration. The operator hosts the document (see docs/mcp-servers.md); set it where authorizations start (API, CLI). Unset: dynamic registration.",
  },
  {
    env: 'AGENTQ_WARMER_HEALTH_PORT',
    key: 'warmerHealthPort',
    schema: port,
    description:
      "Port of the catalog warmer's health listener (`/healthz`, `/readyz`: ready when Redis answers and its BullMQ worker runs). Unset: no listener. 0 picks a free port.",
  },
  {
    env: 'AGENTQ_WORKER_HEALTH_PORT',
    key: 'workerHealthPort',
    schema: port,
    description:
      "Port of the agent worker's health listener (`/healthz`, `/readyz`: ready when Redis answers and its BullMQ worker runs). Unset: no listener. 0 picks a free port.",
  },
  {
    env: 'AGENTQ_HEALTH_HOST',
    key: 'healthHost',
    schema: listenHost,
    default: '127.0.0.1',
    description: 'Address the warmer and worker health listeners bind to.',
  },
  {
    env: 'AGENTQ_SERVERS_FILE',
    key: 'serversFile',
    schema: z.string().min(1),
    default: 'config/servers.yaml',
    description: 'YAML or JSON file of MCP server definitions that `agentq dev` imports at start.',
  },
  {
    env: 'AGENTQ_APPROVAL_TIMEOUT_MS',
    key: 'approvalTimeoutMs',
    schema: positiveInt,
    default: '86400000',
    description: 'How long an approval waits for a decision before it expires as denied.',
  },
  {
    env: 'AGENTQ_WORKER_CONCURRENCY',
    key: 'workerConcurrency',
    schema: positiveInt,
    default: '4',
    description:
      'Runs one agent-worker process executes at once. Split over the run shards it consumes: each shard runs up to this divided by the shard count, rounded up.',
  },
  {
    env: 'AGENTQ_WARMER_CONCURRENCY',
    key: 'warmerConcurrency',
    schema: positiveInt,
    default: '8',
    description: 'Catalog refreshes one warmer process executes at once.',
  },
  {
    env: 'AGENTQ_MCP_POOL_SIZE',
    key: 'mcpPoolSize',
    schema: positiveInt,
    default: '64',
    description:
      'MCP client connections one agent-worker keeps open for tool calls. Past it, the least recently used idle connection closes; a connection in use is never closed for room.',
  },
  {
    env: 'AGENTQ_WATCH_LEASE_MS',
    key: 'watchLeaseMs',
    schema: positiveInt,
    default: '15000',
    description:
      'Lease on a `tools/list_changed` watcher. A dead warmer’s servers are taken over within about this long.',
  },
  {
    env: 'AGENTQ_RUN_ATTEMPTS',
    key: 'runAttempts',
    schema: positiveInt,
    default: '5',
    description: 'Attempts for a run job whose model provider is failing (exponential backoff).',
  },
  {
    env: 'AGENTQ_RUN_LOCK_MS',
    key: 'runLockMs',
    schema: wholeNumber({ min: 1_000 }),
    default: '6000',
    description:
      'BullMQ lock duration of a running run, in ms; renewed every half of it while the worker lives. A `kill -9`ed worker’s runs resume elsewhere within about this plus `AGENTQ_RUN_STALLED_INTERVAL_MS`.',
  },
  {
    env: 'AGENTQ_RUN_STALLED_INTERVAL_MS',
    key: 'runStalledIntervalMs',
    schema: wholeNumber({ min: 500 }),
    default: '3000',
    description:
      'How often workers look for runs whose lock lapsed (their worker died), in ms. Clamped to the lock duration.',
  },
  {
    env: 'AGENTQ_RUN_MAX_STALLED',
    key: 'runMaxStalled',
    schema: positiveInt,
    default: '5',
    description:
      'How many times a run may lose its worker before it fails. Runs resume from their checkpoint, so this only stops a run that kills every worker it lands on. Approval jobs (one idempotent settling script each) get the same allowance: one that fails releases its run as denied.',
  },
  {
    env: 'AGENTQ_MODEL',
    key: 'defaultModel',
    schema: modelIdSchema,
    default: 'scripted:demo',
    description: 'Model used by `agentq run` and the demo when a run does not name one.',
  },
  {
    env: 'OPENAI_COMPATIBLE_BASE_URL',
    key: 'openaiCompatibleBaseUrl',
    schema: z.url('must be a URL'),
    description: 'Base URL for `openai-compatible:*` models (Ollama, vLLM, llama.cpp).',
  },
  {
    env: 'OPENAI_COMPATIBLE_API_KEY',
    key: 'openaiCompatibleApiKey',
    schema: z.string().min(1),
    description: 'API key sent to the `openai-compatible` server, if it needs one.',
    secret: true,
  },
  {
    env: 'OPENAI_API_KEY',
    key: 'openaiApiKey',
    schema: z.string().min(1),
    description: 'Key for `openai:*` models.',
    secret: true,
  },
  {
    env: 'AGENTQ_OPENAI_BASE_URL',
    key: 'openaiBaseUrl',
    schema: providerBaseUrl,
    description:
      'Base URL of the OpenAI API for `openai:*` models (a proxy, a gateway or a local fake), for example `https://api.openai.com/v1`; no credentials in the URL (the key stays in `OPENAI_API_KEY`). Unset: the SDK default.',
  },
  {
    env: 'AGENTQ_EMBEDDING_MODEL',
    key: 'embeddingModel',
    schema: z
      .string()
      .regex(/^(openai|openai-compatible):.+$/, 'must look like openai:<model> or openai-compatible:<model>'),
    description:
      'Embedding model for hybrid tool search and `kb_search`, for example `openai:text-embedding-3-small` or `openai-compatible:nomic-embed-text` (Ollama, vLLM). Warmers embed each tool and indexers each knowledge base chunk once per text; workers fuse vector and lexical ranks. Unset: search is lexical only.',
  },
  {
    env: 'AGENTQ_EMBEDDING_BASE_URL',
    key: 'embeddingBaseUrl',
    schema: z.url('must be a URL'),
    description:
      'Base URL of the embedding server for `openai-compatible:*` embedding models (for Ollama `http://127.0.0.1:11434/v1`). Defaults to `OPENAI_COMPATIBLE_BASE_URL`.',
  },
  {
    env: 'AGENTQ_SEARCH_ENRICH_MODEL',
    key: 'searchEnrichModel',
    schema: z
      .string()
      .regex(
        /^(openai|openai-compatible|anthropic):.+$/,
        'must look like openai:<model>, openai-compatible:<model> or anthropic:<model>',
      ),
    description:
      'Model that writes, once per tool version, a few example requests a user might make of each catalog tool, indexed as a low-weight field of tool search; for example `openai:gpt-4.1-mini`, `anthropic:claude-haiku-4-5` (with `ANTHROPIC_API_KEY`, the key of run models) or `openai-compatible:qwen2.5:7b` (with `OPENAI_COMPATIBLE_BASE_URL`). Warmers send each new tool text (name, title, description, input schema) to it once, in the background, and never hold a list back for it. Unset: off.',
  },
  {
    env: 'AGENTQ_SEARCH_ENRICH_MAX_PER_SERVER_HOUR',
    key: 'searchEnrichMaxPerServerHour',
    schema: positiveInt,
    default: '200',
    description:
      "Most model calls `AGENTQ_SEARCH_ENRICH_MODEL` may cost for one MCP server per clock hour, over all warmers (a counter in Redis). Past it the server's tools are not sent until the next hour; their lists are written as usual, and a warning is logged once per server and hour. Bounds a server that rewrites its descriptions on every list.",
  },
  {
    env: 'AGENTQ_SEARCH_ENRICH_EXAMPLES',
    key: 'searchEnrichExamples',
    schema: wholeNumber({ min: 1, max: 10 }),
    default: '4',
    description:
      'Example requests the `AGENTQ_SEARCH_ENRICH_MODEL` writes per tool (at most 10, each at most 120 characters).',
  },
  {
    env: 'AGENTQ_SEARCH_ENRICH_MAX_TOOLS',
    key: 'searchEnrichMaxTools',
    schema: wholeNumber({ min: 1, max: 10_000 }),
    default: '200',
    description:
      'Most tools one warmer sends to the `AGENTQ_SEARCH_ENRICH_MODEL` per list it reads; the rest wait for the next read of that server, so a large new server spreads its cost over several refreshes.',
  },
  {
    env: 'ANTHROPIC_API_KEY',
    key: 'anthropicApiKey',
    schema: z.string().min(1),
    description: 'Key for `anthropic:*` models.',
    secret: true,
  },
  {
    env: 'AGENTQ_ANTHROPIC_BASE_URL',
    key: 'anthropicBaseUrl',
    schema: providerBaseUrl,
    description:
      'Base URL of the Anthropic Messages API for `anthropic:*` models, for example `https://api.anthropic.com/v1`; no credentials in the URL (the key stays in `ANTHROPIC_API_KEY`). Unset: the SDK default.',
  },
  {
    env: 'AGENTQ_ALLOW_PRIVATE_FETCH',
    key: 'allowPrivateFetch',
    schema: booleanFlag,
    default: 'false',
    description:
      'Let warmers and workers connect to HTTP MCP servers on private, loopback or link-local addresses. `agentq dev` turns it on for its local demo.',
  },
  {
    env: 'AGENTQ_FETCH_ALLOW_HOSTS',
    key: 'fetchAllowHosts',
    schema: hostPatternList,
    description:
      'Comma-separated hosts that may be reached on private, loopback or link-local addresses (MCP servers, knowledge-base URLs, redirects): names, IP literals (`[fd00::1]`) or `*.suffix`, each optionally `:port` for that port only (bare: every port). Not for `web_fetch` (see `AGENTQ_WEB_FETCH_ALLOW_HOSTS`).',
  },
  {
    env: 'AGENTQ_WEB_FETCH_ALLOW_HOSTS',
    key: 'webFetchAllowHosts',
    schema: hostPatternList,
    description:
      'The private, loopback or link-local hosts `web_fetch` may reach, written as in `AGENTQ_FETCH_ALLOW_HOSTS` (prefer `host:port`). Unset: public addresses only, whatever `AGENTQ_FETCH_ALLOW_HOSTS` says (`AGENTQ_ALLOW_PRIVATE_FETCH=true` still opens all).',
  },
  {
    env: 'AGENTQ_ALLOW_STDIO_FROM_API',
    key: 'allowStdioFromApi',
    schema: booleanFlag,
    default: 'false',
    description:
      'Let `PUT /v1/servers/{id}` and the client’s `putServer` define stdio servers with any command. Off: only `agentq servers import`/`add` and the file `agentq dev` imports may, plus the commands in `AGENTQ_STDIO_COMMANDS`. Set it where definitions are written (API, client).',
  },
  {
    env: 'AGENTQ_STDIO_COMMANDS',
    key: 'stdioCommands',
    schema: z.string(),
    default: '',
    description:
      'Comma-separated stdio commands the API and client may define, each compared with the definition’s `command` as a whole string (`node_modules/.bin/mcp-server-memory` and `mcp-server-memory` are different entries).',
  },
  {
    env: 'AGENTQ_SECRET_NAMES',
    key: 'secretNames',
    schema: z.string(),
    default: '',
    description:
      'Comma-separated environment variables a server definition may name as `${NAME}`, besides every `AGENTQ_SECRET_*`. agentq’s own settings and model provider keys never resolve, even when listed. Set it on warmers, workers and where definitions are written.',
  },
  {
    env: 'AGENTQ_SECRET_KEY',
    key: 'secretKey',
    schema: z
      .string()
      .refine((value) => /^[A-Za-z0-9+/]{43}=$/.test(value) && Buffer.from(value, 'base64').length === 32, {
        message: 'must be 32 bytes in base64 (openssl rand -base64 32)',
      }),
    description:
      'Encrypts the OAuth tokens of MCP servers stored in Redis (AES-256-GCM): 32 random bytes in base64 (`openssl rand -base64 32`). Set the same key on warmers, workers, the API and the CLI. Unset: servers with an `auth` block are refused with `OAUTH_KEY_MISSING`. Changing it makes stored tokens unreadable: authorize again.',
    secret: true,
  },
  {
    env: 'AGENTQ_SECRET_HOSTS',
    key: 'secretHosts',
    schema: z.string(),
    default: '',
    description:
      'Binds secrets to the hosts they may be sent to, e.g. `GITHUB_TOKEN=api.github.com;SLACK_TOKEN=*.slack.com`. A name is the full variable or the part after `AGENTQ_SECRET_`; hosts are exact names or `*.domain`. Definitions from the API may use only bound secrets.',
  },
  {
    env: 'AGENTQ_MAX_INPUT_BYTES',
    key: 'maxInputBytes',
    schema: positiveInt,
    default: '262144',
    description:
      "Largest run input, in bytes of JSON: the prompt or the messages, with the system prompt and script. The client, the API and the worker all refuse a bigger spec (`VALIDATION`); the API's body limit is this plus 512 KB for the rest of the spec.",
  },
  {
    env: 'AGENTQ_INPUT_DOWNLOAD_MAX_BYTES',
    key: 'inputDownloadMaxBytes',
    schema: positiveInt,
    default: '20971520',
    description:
      'Most bytes one run attempt downloads for the image and file URLs of its messages that the model cannot read itself, all together (after decompression). Past it the run fails with `INPUT_DOWNLOAD_FAILED` naming this setting, and no more is read.',
  },
  {
    env: 'AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS',
    key: 'inputDownloadTimeoutMs',
    schema: positiveInt,
    default: '30000',
    description:
      "Time one download of a message's image or file URL may take, headers and body together, in ms. Past it the attempt fails with `INPUT_DOWNLOAD_UNAVAILABLE` and the run is tried again with its backoff.",
  },
  {
    env: 'AGENTQ_MAX_MCP_SERVERS',
    key: 'maxMcpServers',
    schema: positiveInt,
    default: '200',
    description: 'Most `assistant.mcpServers` a run spec may name.',
  },
  {
    env: 'AGENTQ_MAX_TOOLS_PER_SERVER',
    key: 'maxToolsPerServer',
    schema: positiveInt,
    default: '2000',
    description:
      'Most tools one MCP server may list. A warmer stops reading a longer list, records `MCP_LIST_TOO_LARGE` with the limit and the count on the server status, and keeps the last good list; a worker ignores a cached list over the limit.',
  },
  {
    env: 'AGENTQ_MAX_CATALOG_ENTRY_BYTES',
    key: 'maxCatalogEntryBytes',
    schema: positiveInt,
    default: '4194304',
    description:
      'Largest cached tool list of one server, in bytes of JSON. A warmer refuses a bigger list the same way as a too long one (`MCP_LIST_TOO_LARGE`, last good list kept); a worker ignores a bigger cache entry. One message a server sends a warmer (a JSON answer, one event of an event stream, or one line of a stdio server) may take four times this before it is normalised: past that the warmer stops reading, closes the connection and refuses the list the same way.',
  },
  {
    env: 'AGENTQ_MAX_TOOL_DESCRIPTION_CHARS',
    key: 'maxToolDescriptionChars',
    schema: positiveInt,
    default: '8000',
    description:
      'Longest MCP tool description (and title) cached, in characters. A longer one is cut and ends with `… [truncated]`, so the model can tell.',
  },
  {
    env: 'AGENTQ_MAX_SCHEMA_DEPTH',
    key: 'maxSchemaDepth',
    schema: positiveInt,
    default: '32',
    description:
      "Deepest nesting of an MCP tool's input schema (objects and arrays), counted from the schema itself. A tool whose input schema nests deeper is left out of the cache and named in the server status (`skippedTools`); the server's other tools are kept. An output schema nesting deeper is dropped from its tool.",
  },
  {
    env: 'AGENTQ_MAX_TOOL_CALLS_PER_STEP',
    key: 'maxToolCallsPerStep',
    schema: positiveInt,
    default: '32',
    description:
      'Most tool calls one model step may execute or ask approval for, counted in the order the model listed them. The calls past it get a `TOOL_CALL_BUDGET_EXCEEDED` tool error naming the limit and are never executed nor put to a person: no approval, no request, no MCP call.',
  },
  {
    env: 'AGENTQ_TOOL_RESULT_MAX_BYTES',
    key: 'toolResultMaxBytes',
    schema: positiveInt,
    default: '1048576',
    description:
      'Largest text one MCP tool result keeps, in bytes of UTF-8 (structured content counted as its JSON; images have their own budget). Past it the text is cut at a character boundary and ends with a note naming the bytes dropped and this limit; the cut happens before the result is masked, journaled, checkpointed or shown to the model. An error result\u2019s text is cut the same way. One message a server sends the worker (a JSON answer, one event of an event stream, or one line of a stdio server) may take four times this plus 1 MiB: past that the worker stops reading, closes the connection and fails the call with `MCP_RESULT_TOO_LARGE`, a tool error the model sees.',
  },
  {
    env: 'AGENTQ_MAX_MODEL_RESPONSE_BYTES',
    key: 'maxModelResponseBytes',
    schema: positiveInt,
    default: '8388608',
    description:
      'Largest answer a model provider may send for one call, in bytes as decoded (for a streamed answer, all of its events together). Past it the worker stops reading and the run fails with MODEL_RESPONSE_TOO_LARGE, without a retry: nothing of the answer is stored.',
  },
  {
    env: 'AGENTQ_CODE_MODE',
    key: 'codeMode',
    schema: z.enum(['off', 'allowed'], { message: 'must be off or allowed' }),
    default: 'off',
    description:
      "Whether assistants may turn on code mode (`settings.codeMode`): a `tool_exec` tool that runs model-written JavaScript, calling the run's tools, in a WebAssembly QuickJS sandbox on a thread of the worker. `off`: no run gets `tool_exec`, whatever its settings.",
  },
  {
    env: 'AGENTQ_CODE_MODE_TIMEOUT_MS',
    key: 'codeModeTimeoutMs',
    schema: positiveInt,
    default: '30000',
    description:
      'Code mode: wall time of one `tool_exec` script, its tool calls included, in milliseconds. A script still running then is stopped with `EXEC_TIMEOUT`.',
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_BLOCKING_MS',
    key: 'codeModeMaxBlockingMs',
    schema: positiveInt,
    default: '250',
    description:
      'Code mode: longest stretch a script may compute without giving the event loop back, in milliseconds (`EXEC_CPU_LIMIT` past it): the most one script can delay the other work of its worker.',
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_CPU_MS',
    key: 'codeModeMaxCpuMs',
    schema: positiveInt,
    default: '2000',
    description:
      'Code mode: compute time of one script, summed over its stretches (tool calls not counted), in milliseconds (`EXEC_CPU_LIMIT` past it).',
  },
  {
    env: 'AGENTQ_CODE_MODE_MEMORY_LIMIT_BYTES',
    key: 'codeModeMemoryLimitBytes',
    schema: positiveInt,
    default: '33554432',
    description:
      "Code mode: a script's heap, in bytes. An allocation past it fails inside the script (`EXEC_MEMORY_LIMIT` when uncaught).",
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_STACK_BYTES',
    key: 'codeModeMaxStackBytes',
    schema: stackBytes,
    default: '131072',
    description:
      "Code mode: a script's stack, in bytes (deep recursion fails with `EXEC_MEMORY_LIMIT`). At most 262144: past that the worker thread's own stack would overflow first.",
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_TOOL_CALLS',
    key: 'codeModeMaxToolCalls',
    schema: positiveInt,
    default: '100',
    description: 'Code mode: most tool calls one script may make (`EXEC_TOOL_CALL_LIMIT` past it).',
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_OUTPUT_BYTES',
    key: 'codeModeMaxOutputBytes',
    schema: positiveInt,
    default: '32768',
    description: 'Code mode: largest value a script may return, in bytes of JSON (`EXEC_OUTPUT_INVALID` past it).',
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_LOG_BYTES',
    key: 'codeModeMaxLogBytes',
    schema: positiveInt,
    default: '4096',
    description: 'Code mode: most a script may log with `console.log`, in bytes; later lines are dropped.',
  },
  {
    env: 'AGENTQ_CODE_MODE_MAX_TOOL_RESULT_BYTES',
    key: 'codeModeMaxToolResultBytes',
    schema: positiveInt,
    default: '4194304',
    description: 'Code mode: largest tool result handed to a script, in bytes of JSON.',
  },
  {
    env: 'AGENTQ_SEARXNG_URL',
    key: 'searxngUrl',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
    description:
      'Base URL of a SearXNG instance for `web_search` (its JSON API `/search?format=json` must be enabled). When set, SearXNG is the default provider. The operator names this host, so it may be private.',
  },
  {
    env: 'AGENTQ_WEB_SEARCH_PROVIDER',
    key: 'webSearchProvider',
    schema: z.enum(['searxng', 'brave', 'tavily']),
    description:
      'Provider `web_search` uses when a run does not name one. Unset: `searxng` when `AGENTQ_SEARXNG_URL` is set, else `brave` when its key is set, else `tavily` when its key is set.',
  },
  {
    env: 'AGENTQ_BRAVE_SEARCH_URL',
    key: 'braveSearchUrl',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
    default: 'https://api.search.brave.com/res/v1/web/search',
    description: 'Brave Search web search endpoint.',
  },
  {
    env: 'AGENTQ_BRAVE_API_KEY',
    key: 'braveApiKey',
    schema: secretPlaceholder,
    default: '${AGENTQ_SECRET_BRAVE_API_KEY}',
    description:
      'Where the Brave Search key is: a `${NAME}` placeholder resolved like a server definition’s secrets (`AGENTQ_SECRET_*`, `AGENTQ_SECRET_NAMES`, host bindings in `AGENTQ_SECRET_HOSTS`).',
  },
  {
    env: 'AGENTQ_TAVILY_URL',
    key: 'tavilyUrl',
    schema: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }),
    default: 'https://api.tavily.com/search',
    description: 'Tavily search endpoint.',
  },
  {
    env: 'AGENTQ_TAVILY_API_KEY',
    key: 'tavilyApiKey',
    schema: secretPlaceholder,
    default: '${AGENTQ_SECRET_TAVILY_API_KEY}',
    description: 'Where the Tavily key is: a `${NAME}` placeholder, resolved like `AGENTQ_BRAVE_API_KEY`.',
  },
  {
    env: 'AGENTQ_WEB_SEARCH_TIMEOUT_MS',
    key: 'webSearchTimeoutMs',
    schema: positiveInt,
    default: '10000',
    description: 'Time one `web_search` call may take, in ms; a slower provider answers the model with a tool error.',
  },
  {
    env: 'AGENTQ_WEB_SEARCH_MAX_BYTES',
    key: 'webSearchMaxBytes',
    schema: positiveInt,
    default: '1048576',
    description:
      'Largest answer read from a `web_search` provider, in bytes (after decompression); a bigger answer fails the call with `WEB_SEARCH_FAILED` naming this setting, and no more than this is read.',
  },
  {
    env: 'AGENTQ_EMBEDDING_MAX_BYTES',
    key: 'embeddingMaxBytes',
    schema: positiveInt,
    default: '134217728',
    description:
      'Largest answer read from the embedding server for one request, in bytes (after decompression); a bigger answer fails that embedding call, naming this setting. The default holds a full batch of 2 048 vectors of 3 072 dimensions as JSON.',
  },
  {
    env: 'AGENTQ_ERROR_BODY_MAX_BYTES',
    key: 'errorBodyMaxBytes',
    schema: positiveInt,
    default: '8192',
    description:
      'Most bytes read of an error answer from outside (a search provider, an embeddings provider, a knowledge-base URL, an MCP server over HTTP); the rest is never read, and at most a short excerpt is quoted.',
  },
  {
    env: 'AGENTQ_WEB_FETCH_MAX_BYTES',
    key: 'webFetchMaxBytes',
    schema: positiveInt,
    default: '2097152',
    description: 'Largest body `web_fetch` reads, in bytes (after decompression); a bigger page is refused.',
  },
  {
    env: 'AGENTQ_WEB_FETCH_TIMEOUT_MS',
    key: 'webFetchTimeoutMs',
    schema: positiveInt,
    default: '15000',
    description: 'Time one `web_fetch` call may take, redirects and body included, in ms.',
  },
  {
    env: 'AGENTQ_WEB_FETCH_MAX_TOKENS',
    key: 'webFetchMaxTokens',
    schema: positiveInt,
    default: '8000',
    description: 'Token budget of a `web_fetch` result; longer pages are cut and say so.',
  },
  {
    env: 'AGENTQ_INDEXER_CONCURRENCY',
    key: 'indexerConcurrency',
    schema: positiveInt,
    default: '2',
    description: '`kb-ingest` jobs one indexer process executes at once.',
  },
  {
    env: 'AGENTQ_INDEXER_LOCK_MS',
    key: 'indexerLockMs',
    schema: wholeNumber({ min: 1_000 }),
    default: '15000',
    description:
      'BullMQ lock duration of a running ingest, in ms. A `kill -9`ed indexer’s ingest is picked up by another indexer (or the restarted one) within about 1.5 times this, and resumes where its progress marker stands.',
  },
  {
    env: 'AGENTQ_KB_FILE_ROOT',
    key: 'kbFileRoot',
    schema: z.string().refine((path) => path.startsWith('/'), 'must be an absolute path'),
    description:
      'Folder under which `POST /v1/kbs/{kb}/sources` may name files (checked by the API, and again by the indexer after resolving links). Unset: the API accepts URL sources only. The CLI reads any local path.',
  },
  {
    env: 'AGENTQ_KB_MAX_SOURCE_BYTES',
    key: 'kbMaxSourceBytes',
    schema: positiveInt,
    default: '20971520',
    description:
      'Largest file or URL body the indexer reads for one knowledge base source; a bigger one fails its ingest.',
  },
  {
    env: 'AGENTQ_TRACE_ARGUMENTS',
    key: 'traceArguments',
    schema: booleanFlag,
    default: 'false',
    description:
      'Record tool arguments and results, prompts and model outputs as span attributes. Off: spans carry names, ids, counts and outcomes only. Tracing itself is on when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (standard `OTEL_*` variables).',
  },
] as const satisfies readonly ConfigVariable[];
