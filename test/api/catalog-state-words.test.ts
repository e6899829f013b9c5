import { runCli } from '@agentq/cli';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import type { RunningApi } from '@agentq/api';
import { definitionHash, SERVER_CATALOG_STATES, serverDefinitionSchema, type ServerCatalogState } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin } from '../security/admin-helpers.js';
import { TEST_TOKEN, parseExposition, startTestApi, type ApiCaller } from './start-test-api.js';

/** One server per state, set up by writing the records a warmer would have written. */
const expected: Record<string, ServerCatalogState> = {
  'srv-connected': 'connected',
  'srv-stale': 'stale',
  'srv-watcher-lost': 'stale',
  'srv-error': 'error',
  'srv-cold': 'never-warmed',
  // Warmed, then damaged: not JSON of an entry, or a key of another Redis type.
  'srv-corrupt': 'corrupt',
  'srv-wrong-type': 'corrupt',
  'srv-off': 'disabled',
};

const tool = { name: 'echo', inputSchema: { type: 'object' } };

describe('one vocabulary for catalog states: CLI, REST, catalog page and metrics agree', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    const keys = keyNames(ctx.prefix);
    for (const id of Object.keys(expected)) {
      const definition = serverDefinitionSchema.parse({
        id,
        transport: { type: 'streamable-http', url: `http://127.0.0.1:9/${id}` },
        enabled: id !== 'srv-off',
      });
      await client.putServer(definition, { origin: 'operator' });
      const hash = definitionHash(definition);
      const entry = (state: 'connected' | 'stale') =>
        JSON.stringify({ tools: [tool], definitionHash: hash, refreshedAt: Date.now() - 1_000, state });
      const status = (state: 'connected' | 'stale' | 'error' | 'disabled', error?: string) =>
        JSON.stringify({
          state,
          error,
          lastAttemptAt: Date.now(),
          toolCount: 1,
          failures: error ? 1 : 0,
          definitionHash: hash,
        });
      if (id === 'srv-connected') {
        await ctx.redis.set(keys.tools(id), entry('connected'));
        await ctx.redis.set(keys.status(id), status('connected'));
      } else if (id === 'srv-stale') {
        await ctx.redis.set(keys.tools(id), entry('stale'));
        await ctx.redis.set(keys.status(id), status('stale', 'refresh failed'));
      } else if (id === 'srv-watcher-lost') {
        // The status was marked failed; the entry still says what the last good read said.
        await ctx.redis.set(keys.tools(id), entry('connected'));
        await ctx.redis.set(keys.status(id), status('error', 'watcher down'));
      } else if (id === 'srv-error') {
        await ctx.redis.set(keys.status(id), status('error', 'connect refused'));
      } else if (id === 'srv-corrupt') {
        await ctx.redis.set(keys.tools(id), '{"tools":"nope"}');
        await ctx.redis.set(keys.catalogVersion(id), 'v9');
        await ctx.redis.set(keys.status(id), status('connected'));
      } else if (id === 'srv-wrong-type') {
        await ctx.redis.rpush(keys.tools(id), 'not', 'an', 'entry');
        await ctx.redis.set(keys.status(id), status('connected'));
      } else if (id === 'srv-off') {
        await ctx.redis.set(keys.status(id), status('disabled'));
      }
    }
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await api?.close();
    await ctx?.close();
  });

  const cli = async (args: string[]) => {
    const lines: string[] = [];
    const code = await runCli(['node', 'agentq', ...args], {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      env: { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' },
    });
    expect(code, lines.join('\n')).toBe(0);
    return lines.join('\n');
  };

  it('every surface names each server with the same word from the documented list', async () => {
    const words = new Set<string>(SERVER_CATALOG_STATES);

    // Client and CLI (JSON and table).
    const listed = await client.listServers();
    const listedJson = JSON.parse(await cli(['servers', 'list', '--json'])) as Array<{
      definition: { id: string };
      state: string;
    }>;
    const table = (await cli(['servers', 'list'])).split('\n').slice(1);
    // REST.
    const rest = await http.call('GET', '/v1/servers');
    expect(rest.status).toBe(200);
    // The catalog page.
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const html = await (await fetch(`${api.url}/admin/catalog`, { headers: { cookie } })).text();
    for (const [, word] of html.matchAll(/server-state-([a-z-]+)"/g)) expect(words.has(word ?? '')).toBe(true);
    // Metrics.
    const metrics = parseExposition(
      await (await fetch(`${api.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } })).text(),
    );
    for (const name of metrics.keys()) {
      const match = /^agentq_catalog_state\{server="[^"]+",state="([^"]+)"\}/.exec(name);
      if (match) expect(words.has(match[1] ?? '')).toBe(true);
    }

    for (const [id, state] of Object.entries(expected)) {
      expect(listed.find((server) => server.definition.id === id)?.state, `client list ${id}`).toBe(state);
      expect((await client.getCatalog(id)).state, `client catalog ${id}`).toBe(state);
      expect(listedJson.find((server) => server.definition.id === id)?.state, `cli list --json ${id}`).toBe(state);
      expect(table.find((line) => line.startsWith(`${id} `))?.split(/\s+/)[2], `cli list ${id}`).toBe(state);
      expect(JSON.parse(await cli(['catalog', id, '--json'])).state, `cli catalog --json ${id}`).toBe(state);
      expect((await cli(['catalog', id])).split('\n')[0], `cli catalog ${id}`).toMatch(new RegExp(`^${id}: ${state},`));
      expect(
        (rest.body.servers as Array<{ definition: { id: string }; state: string }>).find(
          (server) => server.definition.id === id,
        )?.state,
        `rest list ${id}`,
      ).toBe(state);
      expect((await http.call('GET', `/v1/catalog/${id}`)).body.state, `rest catalog ${id}`).toBe(state);
      const row = new RegExp(`<tr class="server" data-server-id="${id}">[\\s\\S]*?server-state-([a-z-]+)"`).exec(html);
      expect(row?.[1], `page ${id}`).toBe(state);
      expect(metrics.get(`agentq_catalog_state{server="${id}",state="${state}"}`), `metric ${id}`).toBe(1);
    }
  }, 60_000);
});
