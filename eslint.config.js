// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// Redis belongs to packages/store: each record has one store, each key one builder, each Lua
// script one file. Elsewhere a Redis command on a receiver named like a connection, or a Lua
// string, is an error. Receivers are matched by name (`redis`, `this.redis`, `options.redis`,
// `subscriber`, `pipeline`, …) so that `Map.get` or `Headers.get` stay allowed.
const REDIS_COMMANDS =
  '/^(get|getBuffer|set|setex|psetex|mget|mset|del|unlink|exists|expire|pexpire|ttl|pttl|incr|incrby|decr|decrby|' +
  'hget|hset|hgetall|hdel|hmget|hexists|hkeys|hincrby|sadd|srem|smembers|sismember|scard|' +
  'zadd|zrem|zremrangebyscore|zremrangebyrank|zrange|zrangebyscore|zrevrange|zrevrangebyscore|zscore|zcount|zcard|' +
  'xadd|xrange|xrevrange|xread|rpush|lpush|lrange|ltrim|publish|subscribe|psubscribe|unsubscribe|' +
  'eval|evalsha|script|defineCommand|multi|pipeline|exec|scan|scanStream|hscan|sscan|zscan|info|ping|keys|type|dbsize)$/';
const REDIS_RECEIVER =
  '/^(redis|[a-z]+Redis|connection|[a-z]+Connection|publisher|subscriber|pipeline|multi|tx|transaction|batch)$/';
const redisOutsideStore = [
  {
    selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${REDIS_COMMANDS}][callee.object.name=${REDIS_RECEIVER}]`,
    message: 'Redis commands belong to packages/store: use the store of the record.',
  },
  {
    selector: `CallExpression[callee.type='MemberExpression'][callee.property.name=${REDIS_COMMANDS}][callee.object.property.name=${REDIS_RECEIVER}]`,
    message: 'Redis commands belong to packages/store: use the store of the record.',
  },
  {
    selector: 'Literal[value=/redis\\.call\\(|redis\\.pcall\\(/]',
    message: 'Lua scripts belong to packages/store/scripts/<name>-<numkeys>.lua.',
  },
  {
    selector: 'TemplateElement[value.raw=/redis\\.call\\(|redis\\.pcall\\(/]',
    message: 'Lua scripts belong to packages/store/scripts/<name>-<numkeys>.lua.',
  },
];

/** Every workspace package of agentq. */
export const WORKSPACES = [
  '@agentq/shared',
  '@agentq/store',
  '@agentq/code-sandbox',
  '@agentq/registry',
  '@agentq/models',
  '@agentq/builtin-tools',
  '@agentq/kb',
  '@agentq/client',
  '@agentq/mcp-connect',
  '@agentq/catalog-warmer',
  '@agentq/agent-worker',
  '@agentq/indexer',
  '@agentq/api',
  '@agentq/cli',
];

/**
 * The workspaces each workspace may import (the rest are refused), and other imports it must not
 * make. Kept equal to the `imports` column of docs/architecture.md's package table.
 * @type {Record<string, { allowed: string[]; alsoRefused?: string[]; why: string }>}
 */
export const IMPORTS = {
  'packages/shared': {
    allowed: [],
    alsoRefused: ['bullmq', '@modelcontextprotocol/*', 'ai'],
    why: 'shared sits under everything',
  },
  'packages/store': {
    allowed: ['@agentq/shared'],
    alsoRefused: ['@modelcontextprotocol/*', 'ai'],
    why: 'the store owns every Redis record and knows nothing of MCP or models',
  },
  'packages/code-sandbox': {
    allowed: [],
    alsoRefused: ['bullmq', 'ioredis', '@modelcontextprotocol/*', 'ai'],
    why: 'the code sandbox knows nothing of agentq: it runs a script against the host functions it is given',
  },
  'packages/registry': {
    allowed: ['@agentq/shared', '@agentq/store'],
    alsoRefused: ['@ai-sdk/*'],
    why: 'the registry never opens a connection or builds a provider: it calls MCP tools through the caller it is given, and embeds with the embedder it is given',
  },
  'packages/models': {
    allowed: ['@agentq/shared', '@agentq/registry'],
    alsoRefused: ['bullmq', 'ioredis', '@modelcontextprotocol/*'],
    why: 'the model and embedding providers, built from configuration',
  },
  'packages/builtin-tools': {
    allowed: ['@agentq/shared', '@agentq/store', '@agentq/registry', '@agentq/kb'],
    alsoRefused: ['bullmq', '@modelcontextprotocol/*'],
    why: 'the builtin tools are registry entries, with no MCP connection or queue of their own',
  },
  'packages/kb': {
    allowed: ['@agentq/shared', '@agentq/store'],
    alsoRefused: ['bullmq', '@modelcontextprotocol/*', 'ai'],
    why: 'knowledge bases: no queues (the indexer owns the BullMQ worker), no MCP, no model',
  },
  'packages/client': {
    allowed: ['@agentq/shared', '@agentq/store', '@agentq/kb'],
    alsoRefused: ['@modelcontextprotocol/*'],
    why: 'the client is published with shared, store and kb only',
  },
  'packages/mcp-connect': {
    allowed: ['@agentq/shared', '@agentq/store'],
    alsoRefused: ['bullmq', 'ioredis', 'ai'],
    why: 'the MCP connection layer sits on shared and the MCP SDK only',
  },
  'apps/catalog-warmer': {
    allowed: ['@agentq/shared', '@agentq/store', '@agentq/registry', '@agentq/models', '@agentq/mcp-connect'],
    why: 'apps never import each other',
  },
  'apps/agent-worker': {
    allowed: [
      '@agentq/shared',
      '@agentq/store',
      '@agentq/registry',
      '@agentq/models',
      '@agentq/builtin-tools',
      '@agentq/mcp-connect',
      '@agentq/kb',
      '@agentq/code-sandbox',
    ],
    why: 'apps never import each other',
  },
  'apps/indexer': {
    allowed: ['@agentq/shared', '@agentq/store', '@agentq/models', '@agentq/kb'],
    why: 'apps never import each other',
  },
  'apps/api': {
    allowed: ['@agentq/shared', '@agentq/store', '@agentq/registry', '@agentq/client', '@agentq/mcp-connect'],
    why: 'apps never import each other; knowledge bases are reached through the client, OAuth flows through mcp-connect',
  },
  'apps/cli': {
    allowed: WORKSPACES.filter((name) => name !== '@agentq/cli'),
    why: 'the CLI starts every role',
  },
};

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      'test/artifacts/**',
      'bench/results/**',
      'sandbox/**',
      'apps/cli/bin/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: {
        // One program for the whole tree (the root tsconfig, plus scripts/): the project service would
        // open each workspace's tsconfig as a program of its own, and hold them all at once.
        project: ['./tsconfig.json', './scripts/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': [
        'error',
        { checksVoidReturn: { arguments: false, attributes: false } },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      'no-console': 'error',
    },
  },
  {
    // The CLI prints to the terminal, tests and benchmarks report to it.
    files: ['apps/cli/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', '**/*.test.ts'],
    rules: { 'no-console': 'off' },
  },
  // Who may import whom: the import column of the package table in docs/architecture.md. Each
  // workspace lists the workspaces it may import; every other one is refused, apps included.
  ...Object.entries(IMPORTS).map(([workspace, { allowed, alsoRefused = [], why }]) => ({
    files: [`${workspace}/**/*.ts`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...WORKSPACES.filter((name) => !allowed.includes(name)).map((name) => ({
              group: [name, `${name}/*`],
              message: `${workspace} may import ${allowed.join(', ') || 'no workspace of ours'} (${why}; docs/architecture.md)`,
            })),
            ...alsoRefused.map((name) => ({ group: [name], message: `${workspace} must not import ${name} (${why})` })),
          ],
        },
      ],
    },
  })),
  {
    // ...except the one BullMQ error adapter every role shares: it alone meets BullMQ's error classes.
    files: ['packages/shared/src/errors/to-bullmq-error.ts', 'packages/shared/src/errors/error-codes.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...WORKSPACES.map((name) => ({ group: [name, `${name}/*`] })),
            { group: ['@modelcontextprotocol/*'] },
            { group: ['ai'] },
          ],
        },
      ],
    },
  },
  {
    files: ['packages/**/*.ts', 'apps/**/*.ts'],
    ignores: ['packages/store/**'],
    rules: { 'no-restricted-syntax': ['error', ...redisOutsideStore] },
  },
  {
    // The run path reads as a sequence of named steps: a function that grows past a screen is split.
    files: ['apps/agent-worker/src/run/**/*.ts', 'apps/agent-worker/src/approvals/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
);
