import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { configVariables } from './config-variables.js';
import { loadConfig, secretValuesOf } from './load-config.js';

function configError(env: Record<string, string>): ValidationError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('loadConfig accepted a bad environment');
}

describe('loadConfig', () => {
  it('fills every default from an empty environment', () => {
    expect(loadConfig({})).toEqual({
      redisUrl: 'redis://127.0.0.1:6379',
      prefix: 'agentq',
      keyPrefix: 'agentq',
      cluster: false,
      clusterNodes: undefined,
      codeMode: 'off',
      codeModeTimeoutMs: 30_000,
      codeModeMaxBlockingMs: 250,
      codeModeMaxCpuMs: 2_000,
      codeModeMemoryLimitBytes: 33_554_432,
      codeModeMaxStackBytes: 131_072,
      codeModeMaxToolCalls: 100,
      codeModeMaxOutputBytes: 32_768,
      codeModeMaxLogBytes: 4_096,
      codeModeMaxToolResultBytes: 4_194_304,
      runShards: 1,
      workerShards: undefined,
      mcpPoolSize: 64,
      logLevel: 'info',
      apiToken: undefined,
      apiTokens: undefined,
      loginRateLimit: 10,
      apiHost: '127.0.0.1',
      apiPort: 3000,
      serversFile: 'config/servers.yaml',
      approvalTimeoutMs: 86_400_000,
      workerConcurrency: 4,
      warmerConcurrency: 8,
      watchLeaseMs: 15_000,
      runAttempts: 5,
      runLockMs: 6_000,
      runStalledIntervalMs: 3_000,
      runMaxStalled: 5,
      defaultModel: 'scripted:demo',
      openaiCompatibleBaseUrl: undefined,
      openaiCompatibleApiKey: undefined,
      openaiApiKey: undefined,
      openaiBaseUrl: undefined,
      anthropicApiKey: undefined,
      anthropicBaseUrl: undefined,
      embeddingModel: undefined,
      embeddingBaseUrl: undefined,
      searchEnrichModel: undefined,
      searchEnrichMaxPerServerHour: 200,
      searchEnrichExamples: 4,
      searchEnrichMaxTools: 200,
      allowPrivateFetch: false,
      fetchAllowHosts: undefined,
      webFetchAllowHosts: undefined,
      allowStdioFromApi: false,
      stdioCommands: '',
      secretNames: '',
      secretHosts: '',
      maxInputBytes: 262144,
      inputDownloadMaxBytes: 20_971_520,
      inputDownloadTimeoutMs: 30_000,
      maxMcpServers: 200,
      maxToolsPerServer: 2000,
      maxCatalogEntryBytes: 4_194_304,
      maxToolDescriptionChars: 8000,
      maxSchemaDepth: 32,
      maxToolCallsPerStep: 32,
      toolResultMaxBytes: 1_048_576,
      maxModelResponseBytes: 8_388_608,
      searxngUrl: undefined,
      webSearchProvider: undefined,
      braveSearchUrl: 'https://api.search.brave.com/res/v1/web/search',
      braveApiKey: '${AGENTQ_SECRET_BRAVE_API_KEY}',
      tavilyUrl: 'https://api.tavily.com/search',
      tavilyApiKey: '${AGENTQ_SECRET_TAVILY_API_KEY}',
      webSearchTimeoutMs: 10_000,
      webSearchMaxBytes: 1_048_576,
      embeddingMaxBytes: 134_217_728,
      errorBodyMaxBytes: 8192,
      webFetchMaxBytes: 2_097_152,
      webFetchTimeoutMs: 15_000,
      webFetchMaxTokens: 8_000,
      indexerConcurrency: 2,
      healthHost: '127.0.0.1',
      warmerHealthPort: undefined,
      workerHealthPort: undefined,
      indexerLockMs: 15_000,
      kbFileRoot: undefined,
      kbMaxSourceBytes: 20_971_520,
      traceArguments: false,
    });
  });

  it('takes web search keys as ${NAME} placeholders only, and provider URLs as http(s)', () => {
    expect(configError({ AGENTQ_BRAVE_API_KEY: 'sk-literal-key' }).issues.map((issue) => issue.field)).toEqual([
      'AGENTQ_BRAVE_API_KEY',
    ]);
    expect(loadConfig({ AGENTQ_TAVILY_API_KEY: '${AGENTQ_SECRET_TAVILY}' }).tavilyApiKey).toBe(
      '${AGENTQ_SECRET_TAVILY}',
    );
    expect(configError({ AGENTQ_SEARXNG_URL: 'ftp://searx.local' }).issues.map((issue) => issue.field)).toEqual([
      'AGENTQ_SEARXNG_URL',
    ]);
    expect(loadConfig({ AGENTQ_SEARXNG_URL: 'http://searxng:8080' }).searxngUrl).toBe('http://searxng:8080');
  });

  it('reads the OpenAI and Anthropic base URLs as http(s) URLs only', () => {
    const config = loadConfig({
      AGENTQ_OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1',
      AGENTQ_ANTHROPIC_BASE_URL: 'https://gateway.example/anthropic/v1',
    });
    expect(config.openaiBaseUrl).toBe('http://127.0.0.1:4010/v1');
    expect(config.anthropicBaseUrl).toBe('https://gateway.example/anthropic/v1');
    const error = configError({ AGENTQ_OPENAI_BASE_URL: 'file:///etc/passwd', AGENTQ_ANTHROPIC_BASE_URL: 'not a url' });
    expect(error.issues.map((issue) => issue.field)).toEqual(['AGENTQ_OPENAI_BASE_URL', 'AGENTQ_ANTHROPIC_BASE_URL']);
    expect(
      configError({ AGENTQ_ANTHROPIC_BASE_URL: 'https://user:secret@gateway.example/v1' }).issues.map(
        (issue) => issue.field,
      ),
    ).toEqual(['AGENTQ_ANTHROPIC_BASE_URL']);
    expect(loadConfig({ AGENTQ_OPENAI_BASE_URL: 'http://127.0.0.1:4010/v1/' }).openaiBaseUrl).toBe(
      'http://127.0.0.1:4010/v1',
    );
  });

  it('reads AGENTQ_OAUTH_CLIENT_METADATA_URL as an https URL with a path only', () => {
    const url = 'https://agentq.example.com/oauth/client-metadata.json';
    expect(loadConfig({ AGENTQ_OAUTH_CLIENT_METADATA_URL: url }).oauthClientMetadataUrl).toBe(url);
    expect(loadConfig({}).oauthClientMetadataUrl).toBeUndefined();
    for (const bad of [
      'http://agentq.example.com/client.json',
      'https://agentq.example.com/',
      'https://a.example/c.json#x',
    ]) {
      const error = configError({ AGENTQ_OAUTH_CLIENT_METADATA_URL: bad });
      expect(error.issues.map((issue) => issue.field)).toEqual(['AGENTQ_OAUTH_CLIENT_METADATA_URL']);
    }
  });

  it('reads AGENTQ_EMBEDDING_MODEL and refuses a provider it cannot embed with', () => {
    expect(loadConfig({ AGENTQ_EMBEDDING_MODEL: 'openai:text-embedding-3-small' }).embeddingModel).toBe(
      'openai:text-embedding-3-small',
    );
    expect(configError({ AGENTQ_EMBEDDING_MODEL: 'anthropic:x' }).issues.map((issue) => issue.field)).toEqual([
      'AGENTQ_EMBEDDING_MODEL',
    ]);
  });

  it('leaves search enrichment off by default and names a bad enrichment setting', () => {
    const defaults = loadConfig({});
    expect(defaults.searchEnrichModel).toBeUndefined();
    expect([defaults.searchEnrichExamples, defaults.searchEnrichMaxTools]).toEqual([4, 200]);
    expect(loadConfig({ AGENTQ_SEARCH_ENRICH_MODEL: 'openai-compatible:qwen2.5:7b' }).searchEnrichModel).toBe(
      'openai-compatible:qwen2.5:7b',
    );
    expect(loadConfig({ AGENTQ_SEARCH_ENRICH_MODEL: 'anthropic:claude-haiku-4-5' }).searchEnrichModel).toBe(
      'anthropic:claude-haiku-4-5',
    );
    const error = configError({
      AGENTQ_SEARCH_ENRICH_MODEL: 'gpt-4',
      AGENTQ_SEARCH_ENRICH_EXAMPLES: '11',
      AGENTQ_SEARCH_ENRICH_MAX_TOOLS: '0',
    });
    expect(error.issues.map((issue) => issue.field)).toEqual([
      'AGENTQ_SEARCH_ENRICH_MODEL',
      'AGENTQ_SEARCH_ENRICH_EXAMPLES',
      'AGENTQ_SEARCH_ENRICH_MAX_TOOLS',
    ]);
  });

  it('reads AGENTQ_FETCH_ALLOW_HOSTS as normalized host patterns and names a bad entry', () => {
    expect(
      loadConfig({ AGENTQ_FETCH_ALLOW_HOSTS: ' MCP.internal , *.Corp.example,,10.0.0.5 ' }).fetchAllowHosts,
    ).toEqual(['mcp.internal', '*.corp.example', '10.0.0.5']);
    expect(loadConfig({ AGENTQ_WEB_FETCH_ALLOW_HOSTS: 'MCP.internal:08080, [::1]:3000' }).webFetchAllowHosts).toEqual([
      'mcp.internal:8080',
      '[::1]:3000',
    ]);
    for (const value of ['*', 'mcp.internal:0', 'mcp.internal:65536', 'https://mcp.internal', 'a.*.b', '::1:80']) {
      const error = configError({ AGENTQ_FETCH_ALLOW_HOSTS: value });
      expect(error.issues.map((issue) => issue.field)).toEqual(['AGENTQ_FETCH_ALLOW_HOSTS']);
    }
  });

  it('refuses a malformed secret binding at start, naming the variable', () => {
    expect(configError({ AGENTQ_SECRET_HOSTS: 'GITHUB_TOKEN' }).issues.map((issue) => issue.field)).toEqual([
      'AGENTQ_SECRET_HOSTS',
    ]);
  });

  it('treats an empty string as unset', () => {
    expect(loadConfig({ AGENTQ_PREFIX: '', AGENTQ_API_PORT: '' })).toMatchObject({ prefix: 'agentq', apiPort: 3000 });
  });

  it('parses and coerces given values', () => {
    const config = loadConfig({
      REDIS_URL: 'rediss://user:pw@redis.example:6380/2',
      AGENTQ_PREFIX: 'prod_q-1',
      AGENTQ_REDIS_CLUSTER: 'yes',
      LOG_LEVEL: 'debug',
      AGENTQ_API_TOKEN: 'a-token-of-sixteen+',
      AGENTQ_API_PORT: '0',
      AGENTQ_APPROVAL_TIMEOUT_MS: '60000',
      AGENTQ_ALLOW_PRIVATE_FETCH: '1',
      OPENAI_COMPATIBLE_BASE_URL: 'http://127.0.0.1:11434/v1',
    });
    expect(config).toMatchObject({
      redisUrl: 'rediss://user:pw@redis.example:6380/2',
      prefix: 'prod_q-1',
      cluster: true,
      logLevel: 'debug',
      apiToken: 'a-token-of-sixteen+',
      apiPort: 0,
      approvalTimeoutMs: 60_000,
      allowPrivateFetch: true,
      openaiCompatibleBaseUrl: 'http://127.0.0.1:11434/v1',
    });
  });

  it('turns cluster mode on for cluster nodes or a redis+cluster URL, with 16 run shards', () => {
    expect(loadConfig({})).toMatchObject({ cluster: false, runShards: 1, workerShards: undefined, mcpPoolSize: 64 });
    expect(loadConfig({ AGENTQ_REDIS_CLUSTER_NODES: '127.0.0.1:7100, [::1]:7101' })).toMatchObject({
      cluster: true,
      keyPrefix: '{agentq}',
      runShards: 16,
      clusterNodes: [
        { host: '127.0.0.1', port: 7100 },
        { host: '::1', port: 7101 },
      ],
    });
    expect(loadConfig({ REDIS_URL: 'redis+cluster://a:1,b:2' })).toMatchObject({ cluster: true, runShards: 16 });
    expect(loadConfig({ AGENTQ_RUN_SHARDS: '4', AGENTQ_WORKER_SHARDS: '0-2,7,1' })).toMatchObject({
      runShards: 4,
      workerShards: [0, 1, 2, 7],
    });
  });

  it('names bad cluster and shard settings', () => {
    for (const [env, value] of [
      ['AGENTQ_REDIS_CLUSTER_NODES', 'nohost'],
      ['AGENTQ_RUN_SHARDS', '300'],
      ['AGENTQ_WORKER_SHARDS', '3-1'],
      ['AGENTQ_MCP_POOL_SIZE', '0'],
    ] as const) {
      try {
        loadConfig({ [env]: value });
        expect.unreachable(`${env}=${value} was accepted`);
      } catch (error) {
        expect((error as ValidationError).issues.map((issue) => issue.field)).toEqual([env]);
      }
    }
  });

  it('reports every bad variable in one CONFIG_INVALID error, each named', () => {
    const bad = {
      REDIS_URL: 'http://not-redis',
      AGENTQ_PREFIX: 'has:colon',
      AGENTQ_REDIS_CLUSTER: 'maybe',
      LOG_LEVEL: 'loud',
      AGENTQ_API_TOKEN: 'short',
      AGENTQ_API_PORT: '70000',
      AGENTQ_APPROVAL_TIMEOUT_MS: '-5',
      AGENTQ_WORKER_CONCURRENCY: 'four',
      AGENTQ_RUN_ATTEMPTS: '1.5',
      AGENTQ_MODEL: 'gpt-4o',
      OPENAI_COMPATIBLE_BASE_URL: 'not a url',
      AGENTQ_CODE_MODE_TIMEOUT_MS: '0',
      AGENTQ_CODE_MODE_MAX_TOOL_CALLS: 'lots',
      AGENTQ_CODE_MODE_MAX_STACK_BYTES: '1048576',
    };
    const error = configError(bad);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((issue) => issue.field).sort()).toEqual(Object.keys(bad).sort());
    for (const name of Object.keys(bad)) expect(error.message).toContain(name);
    expect(error.field).toBe('REDIS_URL');
  });

  it('reads AGENTQ_TOOL_RESULT_MAX_BYTES as a positive whole number and names a bad one', () => {
    expect(loadConfig({ AGENTQ_TOOL_RESULT_MAX_BYTES: '65536' }).toolResultMaxBytes).toBe(65_536);
    for (const [value, message] of [
      ['0', 'must be a whole number greater than 0, got "0"'],
      ['-5', 'must be a whole number greater than 0, got "-5"'],
      ['1.5', 'must be a whole number greater than 0, got "1.5"'],
      ['1MB', 'must be a whole number greater than 0, got "1MB"'],
    ] as const) {
      const error = configError({ AGENTQ_TOOL_RESULT_MAX_BYTES: value });
      expect(error.issues).toEqual([
        { field: 'AGENTQ_TOOL_RESULT_MAX_BYTES', message: expect.stringContaining(message) },
      ]);
    }
  });

  it('says what a port or number variable got and what it expects', () => {
    expect(loadConfig({ AGENTQ_WORKER_HEALTH_PORT: '0', AGENTQ_API_PORT: '8080' })).toMatchObject({
      workerHealthPort: 0,
      apiPort: 8080,
    });
    for (const [env, value, message] of [
      ['AGENTQ_WORKER_HEALTH_PORT', 'abc', 'must be a port number from 0 to 65535, got "abc"'],
      ['AGENTQ_API_PORT', '70000', 'must be a port number from 0 to 65535, got "70000"'],
      ['AGENTQ_WARMER_HEALTH_PORT', '80.5', 'must be a port number from 0 to 65535, got "80.5"'],
      ['AGENTQ_CODE_MODE_MAX_STACK_BYTES', '1048576', 'must be a whole number from 1 to 262144, got "1048576"'],
    ] as const) {
      expect(configError({ [env]: value }).issues).toEqual([{ field: env, message }]);
    }
  });

  it('takes an IP address or a host name to listen on, and refuses anything else naming the variable', () => {
    for (const host of [
      '127.0.0.1',
      '0.0.0.0',
      '::',
      '::1',
      'localhost',
      'locahost',
      'agent-worker',
      'my_svc.internal.',
    ]) {
      expect(loadConfig({ AGENTQ_HEALTH_HOST: host, AGENTQ_API_HOST: host })).toMatchObject({
        healthHost: host,
        apiHost: host,
      });
    }
    for (const host of ['http://localhost', 'local host', 'localhost:3000', '[::1]', '-bad.example', 'a..b']) {
      for (const env of ['AGENTQ_HEALTH_HOST', 'AGENTQ_API_HOST']) {
        const error = configError({ [env]: host });
        expect(error.code).toBe('CONFIG_INVALID');
        expect(error.issues, `${env}=${host}`).toEqual([
          { field: env, message: 'must be an IP address (127.0.0.1, ::) or a host name such as localhost' },
        ]);
      }
    }
  });

  it('names a single bad variable and leaves the good ones alone', () => {
    const error = configError({ AGENTQ_WARMER_CONCURRENCY: '0', AGENTQ_PREFIX: 'fine' });
    expect(error.issues).toEqual([{ field: 'AGENTQ_WARMER_CONCURRENCY', message: expect.any(String) }]);
  });

  it('has a default that passes its own schema for every defaulted variable, and unique names', () => {
    for (const variable of configVariables) {
      if ('default' in variable) expect(variable.schema.safeParse(variable.default).success, variable.env).toBe(true);
    }
    expect(new Set(configVariables.map((variable) => variable.env)).size).toBe(configVariables.length);
    expect(new Set(configVariables.map((variable) => variable.key)).size).toBe(configVariables.length);
  });
});

describe('AGENTQ_API_TOKENS', () => {
  const alice = 'alice-token-0123456789';
  const ops = 'ops-token-0123456789ab';

  it('parses named tokens with scopes', () => {
    const config = loadConfig({ AGENTQ_API_TOKENS: `alice:runs,approvals=${alice}; ops:all=${ops}` });
    expect(config.apiTokens).toEqual([
      { name: 'alice', scopes: ['runs', 'approvals'], token: alice },
      { name: 'ops', scopes: ['runs', 'approvals', 'servers', 'kbs', 'admin'], token: ops },
    ]);
  });

  it('names the problem of a bad value without ever repeating a token', () => {
    const bad = [
      `alice=${alice}`,
      `alice:runs`,
      `alice:runs,root=${alice}`,
      `alice:runs=short`,
      `al ice:runs=${alice}`,
      `alice:runs=${alice};alice:admin=${ops}`,
      `alice:runs=${alice};bob:admin=${alice}`,
      ';',
    ];
    for (const value of bad) {
      const error = configError({ AGENTQ_API_TOKENS: value });
      expect(
        error.issues.map((issue) => issue.field),
        value,
      ).toEqual(['AGENTQ_API_TOKENS']);
      expect(error.message).not.toContain(alice);
      expect(error.message).not.toContain(ops);
    }
  });

  it('keeps the name default for AGENTQ_API_TOKEN', () => {
    const error = configError({ AGENTQ_API_TOKEN: ops, AGENTQ_API_TOKENS: `default:runs=${alice}` });
    expect(error.field).toBe('AGENTQ_API_TOKENS');
    expect(configError({ AGENTQ_API_TOKEN: ops, AGENTQ_API_TOKENS: `bob:runs=${ops}` }).field).toBe(
      'AGENTQ_API_TOKENS',
    );
  });

  it('registers every named token for redaction', () => {
    const config = loadConfig({ AGENTQ_API_TOKEN: 'api-token-0123456789', AGENTQ_API_TOKENS: `alice:runs=${alice}` });
    expect(secretValuesOf(config).sort()).toEqual([alice, 'api-token-0123456789']);
  });
});

describe('secretValuesOf', () => {
  it('returns the secret values that are set, long enough to redact', () => {
    const config = loadConfig({
      AGENTQ_API_TOKEN: 'api-token-0123456789',
      OPENAI_API_KEY: 'sk-openai-key',
      ANTHROPIC_API_KEY: 'abc',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(secretValuesOf(config).sort()).toEqual(['api-token-0123456789', 'sk-openai-key']);
  });
});
