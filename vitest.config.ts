import { defineConfig } from 'vitest/config';

// Two projects: `unit` (next to the code, no Redis) and `integration` (test/, real Redis and real
// MCP servers). The integration project's global setup finds or starts a Redis and fails loudly
// when it cannot: those tests never skip.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two cores: run integration files two at a time so child processes don't starve.
          maxWorkers: 2,
          fileParallelism: true,
        },
      },
    ],
  },
});
