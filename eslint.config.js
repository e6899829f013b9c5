// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
        projectService: true,
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
  {
    // Apps never import each other, and shared pulls in nothing of ours.
    files: ['packages/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@agentq/*', 'bullmq', '@modelcontextprotocol/*', 'ai'] }],
    },
  },
  {
    // ...except the one BullMQ error adapter every role shares: it alone meets BullMQ's error classes.
    files: ['packages/shared/src/errors/to-bullmq-error.ts', 'packages/shared/src/errors/error-codes.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: ['@agentq/*', '@modelcontextprotocol/*', 'ai'] }],
    },
  },
  {
    // The registry never opens a connection: it calls MCP tools through the caller it is given.
    files: ['packages/registry/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@agentq/client',
            '@agentq/mcp-connect',
            '@agentq/catalog-warmer',
            '@agentq/agent-worker',
            '@agentq/api',
            '@agentq/cli',
          ],
        },
      ],
    },
  },
  {
    // The builtin tools are registry entries: shared and registry below them, never an app, and
    // no MCP connection or queue of their own.
    files: ['packages/builtin-tools/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@agentq/client',
            '@agentq/mcp-connect',
            '@agentq/catalog-warmer',
            '@agentq/agent-worker',
            '@agentq/indexer',
            '@agentq/api',
            '@agentq/cli',
            'bullmq',
            '@modelcontextprotocol/*',
          ],
        },
      ],
    },
  },
  {
    // Knowledge bases: storage, ingestion steps and the cache-only reader. No queues (the indexer
    // app owns the BullMQ worker), no MCP, no model.
    files: ['packages/kb/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@agentq/registry',
            '@agentq/client',
            '@agentq/mcp-connect',
            '@agentq/catalog-warmer',
            '@agentq/agent-worker',
            '@agentq/indexer',
            '@agentq/api',
            '@agentq/cli',
            'bullmq',
            '@modelcontextprotocol/*',
            'ai',
          ],
        },
      ],
    },
  },
  {
    // The MCP connection layer sits on shared and the MCP SDK only: no queues, no registry, no model.
    files: ['packages/mcp-connect/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            '@agentq/registry',
            '@agentq/client',
            '@agentq/catalog-warmer',
            '@agentq/agent-worker',
            '@agentq/api',
            '@agentq/cli',
            'bullmq',
            'ioredis',
            'ai',
          ],
        },
      ],
    },
  },
  {
    files: ['apps/catalog-warmer/**/*.ts', 'apps/agent-worker/**/*.ts', 'apps/api/**/*.ts', 'apps/indexer/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: ['@agentq/catalog-warmer', '@agentq/agent-worker', '@agentq/api', '@agentq/cli', '@agentq/indexer'],
        },
      ],
    },
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
