import { configDefaults, defineConfig } from 'vitest/config';

// Three projects: `unit` (next to the code, no Redis), `integration` (test/, real Redis and real
// MCP servers) and `cluster` (test/cluster/, on a local Redis Cluster it starts). `npm test` runs
// the first two, `npm run test:cluster` the third. The global setups find or start their Redis and
// fail loudly when they cannot: those tests never skip.
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
          exclude: [...configDefaults.exclude, 'test/cluster/**'],
          environment: 'node',
          globalSetup: ['test/helpers/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          // Two cores: run integration files two at a time so child processes don't starve.
          maxWorkers: 2,
          fileParallelism: true,
        },
      },
      {
        // `npm run test:cluster`: the end-to-end suites on a private local 3-master Redis Cluster,
        // one file at a time (they share the cluster and read its per-node command counts).
        test: {
          name: 'cluster',
          include: ['test/cluster/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/helpers/cluster-setup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
