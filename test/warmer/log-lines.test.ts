import { createLogger } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// pino writes a child's bindings after its parent's as they are: a key bound twice appears twice
// on the line, and a JSON reader keeps only one of them.
let harness: WarmerHarness;
const raw: string[] = [];

beforeAll(async () => {
  harness = await createWarmerHarness();
  // A server that dies at once: the refresh fails and the watcher goes down, logging from the
  // refresh and watch components under the warmer's own bindings.
  await harness.putServer({
    id: 'dies',
    transport: { type: 'stdio', command: process.execPath, args: ['-e', 'process.exit(3)'] },
  });
  await harness.startWarmer({
    logger: createLogger({
      level: 'debug',
      name: 'log-lines-test',
      destination: { write: (text: string) => void raw.push(...text.split('\n').filter((line) => line.trim() !== '')) },
    }),
  });
});
afterAll(async () => {
  await harness.close();
});

describe('warmer log lines', () => {
  it('carry each key once, with the role and the component apart', async () => {
    await waitFor(async () => (raw.some((line) => line.includes('"component":"refresh"')) ? true : undefined), {
      timeoutMs: 60_000,
    });
    await waitFor(async () => (raw.some((line) => line.includes('"component":"watch"')) ? true : undefined), {
      timeoutMs: 60_000,
    });
    for (const line of raw) {
      for (const key of ['component', 'role', 'warmerId', 'serverId']) {
        const count = line.split(`"${key}":`).length - 1;
        expect(count, `${key} in ${line}`).toBeLessThanOrEqual(1);
      }
    }
    const refresh = raw.find((line) => line.includes('"component":"refresh"')) ?? '';
    expect(JSON.parse(refresh)).toMatchObject({ role: 'catalog-warmer', component: 'refresh', serverId: 'dies' });
  }, 90_000);
});
