// Hole 2, written as the attack: a caller with an API token defines a stdio server whose command
// would run on the warmers. Refused with FORBIDDEN before anything is stored, so no warmer ever
// hears of it; the operator's own paths (import, explicit opt-in) keep working.
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import type { RunningApi } from '@agentq/api';
import { AgentqError, serverPolicyFromEnv } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { apiCaller, startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { queueIdle } from '../warmer/refresh-helpers.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';

let harness: WarmerHarness;
let api: RunningApi;
let http: ApiCaller;
let client: AgentqClient;
let fixture: HttpFixture;
let folder: string;
let marker: string;

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    if (AgentqError.isInstance(error)) return error.code;
    throw error;
  }
}

beforeAll(async () => {
  harness = await createWarmerHarness();
  folder = await mkdtemp(join(tmpdir(), 'agentq-stdio-attack-'));
  marker = join(folder, 'pwned');
  fixture = await startHttpFixture({});
  // A running warmer on the same prefix: if the definition got through, it would spawn it.
  await harness.startWarmer();
  ({ api, http } = await startTestApi(harness.ctx, testConfig(harness.ctx)));
  // The client of another service: no opt-in in its policy.
  client = createAgentqClient({
    redisUrl: harness.ctx.redisUrl,
    prefix: harness.ctx.prefix,
    serverPolicy: serverPolicyFromEnv({}),
  });
});

afterAll(async () => {
  await client?.close();
  await api?.close();
  await harness?.close();
  await fixture?.stop();
  await rm(folder, { recursive: true, force: true });
});

const attack = () => ({ transport: { type: 'stdio', command: 'sh', args: ['-c', `echo owned > ${marker}`] } });

describe('stdio definitions from the API', () => {
  it('REST PUT of a stdio server is 403 FORBIDDEN, stores nothing and spawns nothing', async () => {
    const response = await http.call('PUT', '/v1/servers/owned', { body: attack() });
    expect(response.status).toBe(403);
    expect(response.body.error).toMatchObject({ code: 'FORBIDDEN', field: 'transport.command' });
    expect(await harness.store.get('owned')).toBeNull();

    // A legitimate definition after it is warmed by the same warmer: the warmer was listening, and
    // by now would have run the command had it been stored.
    expect(
      (
        await http.call('PUT', '/v1/servers/legit', {
          body: { transport: { type: 'streamable-http', url: fixture.url } },
        })
      ).status,
    ).toBe(200);
    await waitFor(() => harness.entry('legit'), { what: 'legit warmed', timeoutMs: 45_000 });
    await queueIdle(harness.queue);
    expect(await harness.status('owned')).toBeNull();
    expect(existsSync(marker)).toBe(false);
    expect((await harness.store.list()).map((definition) => definition.id)).toEqual(['legit']);
  });

  it("the client's putServer refuses it too, unless the operator allow-lists the exact command", async () => {
    expect(await codeOf(client.putServer({ id: 'owned', ...attack() }))).toBe('FORBIDDEN');
    expect(await harness.store.get('owned')).toBeNull();

    const allowListed = createAgentqClient({
      redisUrl: harness.ctx.redisUrl,
      prefix: harness.ctx.prefix,
      serverPolicy: serverPolicyFromEnv({
        AGENTQ_STDIO_COMMANDS: '/usr/bin/true, node_modules/.bin/mcp-server-memory',
      }),
    });
    try {
      const disabled = { enabled: false };
      // Whole-string match: neither another command nor another spelling of an allowed one passes.
      expect(await codeOf(allowListed.putServer({ id: 'owned', ...attack(), ...disabled }))).toBe('FORBIDDEN');
      expect(
        await codeOf(
          allowListed.putServer({ id: 'mem', transport: { type: 'stdio', command: 'mcp-server-memory' }, ...disabled }),
        ),
      ).toBe('FORBIDDEN');
      expect(
        await codeOf(
          allowListed.putServer({
            id: 'mem',
            transport: { type: 'stdio', command: 'node_modules/.bin/mcp-server-memory' },
            ...disabled,
          }),
        ),
      ).toBe('ok');
    } finally {
      await allowListed.close();
      await harness.store.remove('mem');
    }
  });

  it('AGENTQ_ALLOW_STDIO_FROM_API=true opens the API to stdio definitions', async () => {
    const open = await startTestApi(harness.ctx, testConfig(harness.ctx, { AGENTQ_ALLOW_STDIO_FROM_API: 'true' }));
    try {
      const caller = apiCaller(open.api.url);
      const response = await caller.call('PUT', '/v1/servers/opted-in', {
        body: { transport: { type: 'stdio', command: 'true' }, enabled: false },
      });
      expect(response.status).toBe(200);
    } finally {
      await open.api.close();
      await harness.store.remove('opted-in');
    }
  });

  it('an operator import of a stdio server stays allowed', async () => {
    const file = join(folder, 'servers.yaml');
    await writeFile(
      file,
      'servers:\n  - id: imported\n    enabled: false\n    transport: { type: stdio, command: "true" }\n',
    );
    expect((await client.importServers(file)).map((definition) => definition.id)).toEqual(['imported']);
    await harness.store.remove('imported');
  });
});
