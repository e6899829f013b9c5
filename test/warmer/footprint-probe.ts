// A warmer process for the footprint benchmark: runs `startCatalogWarmer` like main.ts does, and
// answers each `measure` line on stdin with one JSON line of memory figures after a full GC.
// Run with `node --expose-gc --import tsx`.
import { createInterface } from 'node:readline';
import { startCatalogWarmer } from '@agentq/catalog-warmer';
import { loadConfig, silentLogger } from '@agentq/shared';

const warmer = await startCatalogWarmer({ config: loadConfig(), logger: silentLogger() });
const collect = (globalThis as { gc?: () => void }).gc;
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() !== 'measure') return;
  collect?.();
  collect?.();
  const usage = process.memoryUsage();
  process.stdout.write(`${JSON.stringify({ rss: usage.rss, heapUsed: usage.heapUsed, external: usage.external })}\n`);
});
lines.on('close', () => {
  void warmer.close().then(() => process.exit(0));
});
