import { z } from 'zod';

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const positiveInt = z.coerce
  .number({ message: 'must be a number' })
  .int('must be a whole number')
  .positive('must be greater than 0');

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
 * README's configuration table is checked against it by a test, so the two cannot drift.
 */
export const configVariables = [
  {
    env: 'REDIS_URL',
    key: 'redisUrl',
    schema: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://'),
    default: 'redis://127.0.0.1:6379',
    description: 'Redis connection URL. Under cluster mode, any node of the cluster.',
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
    description: 'Connect to a Redis Cluster and keep every key in one hash slot.',
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
      'Bearer token for the HTTP API, Bull Board and the inbox. Required by `agentq api`; `agentq dev` generates one when unset.',
    secret: true,
  },
  {
    env: 'AGENTQ_API_HOST',
    key: 'apiHost',
    schema: z.string().min(1),
    default: '127.0.0.1',
    description: 'Address the API listens on.',
  },
  {
    env: 'AGENTQ_API_PORT',
    key: 'apiPort',
    schema: z.coerce.number().int().min(0).max(65535),
    default: '3000',
    description: 'Port the API listens on (0 picks a free port).',
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
    description: 'Runs one agent-worker process executes at once.',
  },
  {
    env: 'AGENTQ_WARMER_CONCURRENCY',
    key: 'warmerConcurrency',
    schema: positiveInt,
    default: '8',
    description: 'Catalog refreshes one warmer process executes at once.',
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
    env: 'AGENTQ_MODEL',
    key: 'defaultModel',
    schema: z.string().regex(/^[a-z][a-z0-9-]*:.+$/, 'must look like provider:model'),
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
    env: 'ANTHROPIC_API_KEY',
    key: 'anthropicApiKey',
    schema: z.string().min(1),
    description: 'Key for `anthropic:*` models.',
    secret: true,
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
    env: 'AGENTQ_MAX_INPUT_BYTES',
    key: 'maxInputBytes',
    schema: positiveInt,
    default: '262144',
    description:
      "Largest run input, in bytes of JSON: the prompt or the messages, with the system prompt and script. The client, the API and the worker all refuse a bigger spec (`VALIDATION`); the API's body limit is this plus 512 KB for the rest of the spec.",
  },
  {
    env: 'AGENTQ_MAX_MCP_SERVERS',
    key: 'maxMcpServers',
    schema: positiveInt,
    default: '200',
    description: 'Most `assistant.mcpServers` a run spec may name.',
  },
] as const satisfies readonly ConfigVariable[];
