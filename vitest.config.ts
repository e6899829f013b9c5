import { defineConfig } from 'vitest/config';

// Two projects: `unit` (next to the code, no Redis) and `integration` (test/, real Redis and real
// MCP servers). The integration project's global setup finds or starts a Redis and fails loudly
// when it cannot: those tests never skip.
export default defineConfig({
  test: {
    // The JSON report lets .ci/run print a plain "N passed, N failed" line.
    reporters: ['default', ['json', { outputFile: 'test/artifacts/vitest-report.json' }]],
    projects: [
      {
        test: {
          name: 'unit',
          // Unit tests run first, in their own group, so a broken unit fails fast.
          sequence: { groupOrder: 0 },
          include: ['packages/*/src/**/*.test.ts', 'apps/*/src/**/*.test.ts'],
          environment: 'node',
        },
      },
      {
        test: {
          name: 'integration',
          sequence: { groupOrder: 1 },
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
