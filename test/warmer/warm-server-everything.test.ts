import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { definitionHash, digestOf, serverDefinitionSchema } from '@agentq/shared';
import { catalogEntryDigest, keyNames } from '@agentq/store';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { stopChild } from '../fixtures/mcp/spawn-fixture.js';
import { createWarmerHarness, freePort, repositoryRoot, waitFor, type WarmerHarness } from './warmer-harness.js';

// The reference server from npm, over both transports a warmer speaks most.
const everythingBin = join(repositoryRoot, 'node_modules', '.bin', 'mcp-server-everything');

let harness: WarmerHarness;
let httpServer: ChildProcess | undefined;

beforeEach(async () => {
  harness = await createWarmerHarness();
});
afterEach(async () => {
  await harness.close();
  if (httpServer) await stopChild(httpServer);
  httpServer = undefined;
});

async function expectWarmed(serverId: string): Promise<void> {
  const entry = await waitFor(() => harness.entry(serverId), { what: `${serverId} in the cache`, timeoutMs: 40_000 });
  const definition = await harness.store.get(serverId);
  expect(definition).not.toBeNull();
  expect(entry.state).toBe('connected');
  expect(entry.definitionHash).toBe(definitionHash(serverDefinitionSchema.parse(definition)));
  expect(entry.version).toBe(digestOf(entry.tools));
  const names = entry.tools.map((tool) => tool.name);
  expect(names).toContain('echo');
  expect(entry.tools.length).toBeGreaterThan(3);
  const status = await harness.status(serverId);
  expect(status).toMatchObject({ state: 'connected', toolCount: entry.tools.length, failures: 0 });
  // The version key is written with the entry, in the same script: read both in one MGET.
  const keys = keyNames(harness.ctx.prefix);
  const [entryText, version] = await harness.ctx.redis.mget(keys.tools(serverId), keys.catalogVersion(serverId));
  expect(entryText).not.toBeNull();
  expect(version).toBe(catalogEntryDigest(entryText ?? ''));
}

describe('warming @modelcontextprotocol/server-everything', () => {
  it('caches its tools over stdio as connected', async () => {
    await harness.putServer({
      id: 'everything',
      transport: { type: 'stdio', command: everythingBin, args: ['stdio'] },
    });
    await harness.startWarmer();
    await expectWarmed('everything');
  });

  it('caches its tools over Streamable HTTP as connected', async () => {
    const port = await freePort();
    httpServer = spawn(everythingBin, ['streamableHttp'], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    httpServer.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    await waitFor(() => /listening on port/i.test(stderr), { what: 'server-everything to listen' });
    await harness.putServer({
      id: 'everything-http',
      transport: { type: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` },
    });
    await harness.startWarmer();
    await expectWarmed('everything-http');
  });
});
