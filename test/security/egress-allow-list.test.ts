import net, { type AddressInfo } from 'node:net';
import { registerBuiltinTools } from '@agentq/builtin-tools';
import type { ToolEntry, ToolRegistry } from '@agentq/registry';
import { loadConfig } from '@agentq/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  send,
  startLoopbackServer,
  type LoopbackServer,
} from '../../packages/builtin-tools/src/test-support/loopback-server.js';
import { fetchErrorCode } from '../helpers/fetch-error-code.js';

// Hole 8: an allow-list entry made for one purpose must not open a private address to another.
// The operator allows a local SearXNG by host and port; the model's web_fetch must still not reach
// another port of that host (Redis, here a TCP listener that counts connections), and neither may
// a redirect from the search provider.

describe('egress: allow-list by host and port, and web_fetch on its own list', () => {
  let searxng: LoopbackServer;
  let site: LoopbackServer;
  let internal: net.Server;
  let internalPort: number;
  let connections = 0;
  let redirectTo: string | undefined;

  beforeAll(async () => {
    internal = net.createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
    internalPort = (internal.address() as AddressInfo).port;
    searxng = await startLoopbackServer((_request, response) => {
      if (redirectTo !== undefined) {
        response.writeHead(302, { location: redirectTo });
        response.end();
        return;
      }
      send(
        response,
        200,
        'application/json',
        JSON.stringify({ results: [{ url: 'https://example.org/', title: 'x' }] }),
      );
    });
    site = await startLoopbackServer((_request, response) => send(response, 200, 'text/plain', 'a page'));
  });

  afterAll(async () => {
    await Promise.all([searxng?.close(), site?.close()]);
    await new Promise<void>((resolve) => internal.close(() => resolve()));
  });

  beforeEach(() => {
    connections = 0;
    redirectTo = undefined;
  });

  function tools(env: Record<string, string>): Map<string, ToolEntry> {
    const entries = new Map<string, ToolEntry>();
    const registry = { register: (entry: ToolEntry) => entries.set(entry.name, entry) } as unknown as ToolRegistry;
    const config = loadConfig({ AGENTQ_SEARXNG_URL: searxng.origin, AGENTQ_WEB_SEARCH_TIMEOUT_MS: '30000', ...env });
    registerBuiltinTools(registry, { config, env: {} });
    return entries;
  }

  function call(entry: ToolEntry | undefined, input: unknown): Promise<unknown> {
    const execute = entry?.tool.execute;
    if (!execute) throw new Error('no such tool');
    return Promise.resolve(
      execute(input, { toolCallId: 'call-1', messages: [], abortSignal: AbortSignal.timeout(30_000) }),
    );
  }

  it('a host:port entry for the search provider does not let web_fetch reach another port, or that one', async () => {
    const entries = tools({ AGENTQ_FETCH_ALLOW_HOSTS: `127.0.0.1:${searxng.port}` });
    expect(await call(entries.get('web_search'), { query: 'tides' })).toBeDefined();

    const fetch = entries.get('web_fetch');
    expect(await fetchErrorCode(call(fetch, { url: 'http://127.0.0.1:6379/' }))).toBe('PRIVATE_ADDRESS');
    expect(await fetchErrorCode(call(fetch, { url: `http://127.0.0.1:${internalPort}/` }))).toBe('PRIVATE_ADDRESS');
    expect(await fetchErrorCode(call(fetch, { url: `http://localhost:${internalPort}/` }))).toBe('PRIVATE_ADDRESS');
    // Allowed for search, but web_fetch does not inherit the general list.
    expect(await fetchErrorCode(call(fetch, { url: `${searxng.origin}/search?q=x&format=json` }))).toBe(
      'PRIVATE_ADDRESS',
    );
    expect(connections).toBe(0);
  });

  it('a bare host in the general list still does not open private addresses to web_fetch', async () => {
    const entries = tools({ AGENTQ_FETCH_ALLOW_HOSTS: '127.0.0.1,localhost' });
    expect(await fetchErrorCode(call(entries.get('web_fetch'), { url: `http://127.0.0.1:${internalPort}/` }))).toBe(
      'PRIVATE_ADDRESS',
    );
    expect(connections).toBe(0);
  });

  it('web_fetch reaches exactly what AGENTQ_WEB_FETCH_ALLOW_HOSTS names', async () => {
    const entries = tools({ AGENTQ_WEB_FETCH_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
    const fetch = entries.get('web_fetch');
    expect(String(await call(fetch, { url: `${site.origin}/page` }))).toContain('a page');
    expect(await fetchErrorCode(call(fetch, { url: `http://127.0.0.1:${internalPort}/` }))).toBe('PRIVATE_ADDRESS');
    expect(connections).toBe(0);
  });

  it('the search provider is allowed on its own port only: its redirect to another port is refused', async () => {
    const entries = tools({});
    redirectTo = `http://127.0.0.1:${internalPort}/`;
    expect(await fetchErrorCode(call(entries.get('web_search'), { query: 'tides' }))).toBe('WEB_SEARCH_FAILED');
    expect(connections).toBe(0);
  });
});
