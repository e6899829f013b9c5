import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { createGuardedFetch, type FetchTargetLookup } from '@agentq/shared';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { fetchErrorCode } from '../helpers/fetch-error-code.js';

// Hole 6: the SSRF guard. Real HTTP on loopback: two servers on the same port, one on 127.0.0.1
// ("first") and one on 127.0.0.2 ("second"), so a request that lands on the wrong address is seen.

interface Hit {
  server: 'first' | 'second';
  path: string;
  host: string | undefined;
  authorization: string | undefined;
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A resolver that answers each name from a script, one answer per call (the last repeats). */
function scriptedLookup(answers: Record<string, string[][]>): FetchTargetLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    const script = answers[hostname];
    if (!script) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const answer = script[Math.min(calls.filter((name) => name === hostname).length, script.length - 1)] ?? [];
    calls.push(hostname);
    return answer.map((address) => ({ address }));
  };
  return Object.assign(lookup, { calls });
}

describe('SSRF guard: createGuardedFetch on loopback', () => {
  const hits: Hit[] = [];
  let first: Server;
  let second: Server;
  let port: number;

  function handler(name: Hit['server']) {
    return (request: IncomingMessage, response: ServerResponse) => {
      const path = request.url ?? '/';
      hits.push({ server: name, path, host: request.headers.host, authorization: request.headers.authorization });
      const redirect = /^\/redirect\?to=(.+)$/.exec(path);
      if (redirect?.[1]) {
        response.writeHead(302, { location: decodeURIComponent(redirect[1]) });
        response.end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.end(name);
    };
  }

  beforeAll(async () => {
    first = createServer(handler('first'));
    second = createServer(handler('second'));
    port = await listen(first, '127.0.0.1', 0);
    await listen(second, '127.0.0.2', port);
  });

  afterAll(async () => {
    await Promise.all([first && close(first), second && close(second)]);
  });

  function hitsSince(mark: number): Hit[] {
    return hits.slice(mark);
  }

  it.each([
    'http://127.0.0.1:PORT/',
    'http://0x7f.1:PORT/',
    'http://2130706433:PORT/',
    'http://0177.0.0.1:PORT/',
    'http://127.1:PORT/',
    'http://localhost:PORT/',
    'http://localhost.:PORT/',
    'http://[::ffff:127.0.0.1]:PORT/',
    'http://[::ffff:7f00:1]:PORT/',
    'http://[::ffff:0:7f00:1]:PORT/',
    'http://[::127.0.0.1]:PORT/',
    'http://[::1]:PORT/',
    'http://[64:ff9b::7f00:1]:PORT/',
    'http://[64:ff9b::a9fe:a9fe]:PORT/',
    'http://[2002:7f00:1::]:PORT/',
    'http://[2001:0:808:808::80ff:fffe]:PORT/',
    'http://[fec0::1]:PORT/',
    'http://[fd00::1]:PORT/',
    'http://[fe80::1]:PORT/',
    'http://[ff02::1]:PORT/',
    'http://[2001:db8::1]:PORT/',
    'http://192.0.2.1:PORT/',
    'http://198.51.100.1:PORT/',
    'http://203.0.113.1:PORT/',
    'http://198.18.0.1:PORT/',
    'http://100.64.0.1:PORT/',
    'http://240.0.0.1:PORT/',
    'http://255.255.255.255:PORT/',
  ])('refuses %s before connecting', async (template) => {
    const mark = hits.length;
    const lookup = scriptedLookup({});
    const guardedFetch = createGuardedFetch({ lookup });
    expect(await fetchErrorCode(guardedFetch(template.replace('PORT', String(port))))).toBe('PRIVATE_ADDRESS');
    expect(hitsSince(mark)).toEqual([]);
    // Literals and localhost never go to the resolver, so no answer can talk the check round.
    expect(lookup.calls).toEqual([]);
  });

  it('refuses a name whose answer holds a public and a private address', async () => {
    const mark = hits.length;
    const lookup = scriptedLookup({ 'rebind.test': [['8.8.8.8', '127.0.0.1']] });
    const guardedFetch = createGuardedFetch({ lookup });
    expect(await fetchErrorCode(guardedFetch(`http://rebind.test:${port}/`))).toBe('PRIVATE_ADDRESS');
    expect(hitsSince(mark)).toEqual([]);
  });

  it('rebinding: a resolver that answers public, then loopback, never gets the request onto loopback', async () => {
    const mark = hits.length;
    // First answer public (it passes the check), every later answer loopback. A guard that checks
    // and then lets the connection resolve again would land on the first server. Tests never send
    // traffic off loopback, so the socket layer is intercepted here: it records where the
    // connection would go (through the connection's own lookup, as net.connect does) and fails it.
    const attempted: string[] = [];
    const connect = vi.spyOn(net, 'connect').mockImplementation(((options: {
      host?: string;
      lookup?: (host: string, lookupOptions: object, callback: (...args: unknown[]) => void) => void;
    }) => {
      const socket = new net.Socket();
      const fail = () =>
        socket.destroy(Object.assign(new Error('connection intercepted by the test'), { code: 'ECONNREFUSED' }));
      if (!options.lookup) {
        attempted.push(`unpinned ${options.host}`);
        process.nextTick(fail);
        return socket;
      }
      options.lookup(options.host ?? '', { all: true }, (error: unknown, answer: unknown) => {
        if (error) attempted.push('lookup error');
        else if (Array.isArray(answer)) attempted.push(...answer.map((entry: { address: string }) => entry.address));
        else attempted.push(String(answer));
        fail();
      });
      return socket;
    }) as unknown as typeof net.connect);
    try {
      const lookup = scriptedLookup({ 'rebind.test': [['8.8.8.8'], ['127.0.0.1']] });
      const guardedFetch = createGuardedFetch({ lookup, connectTimeoutMs: 2_000 });
      const outcome = await guardedFetch(`http://rebind.test:${port}/`).then(
        async (response) => `reached ${await response.text()}`,
        () => 'failed',
      );
      expect(outcome).toBe('failed');
      // The connection was aimed at the checked public address only, and DNS was asked once.
      expect(attempted.length).toBeGreaterThan(0);
      expect(new Set(attempted)).toEqual(new Set(['8.8.8.8']));
      expect(lookup.calls).toEqual(['rebind.test']);
      expect(hitsSince(mark)).toEqual([]);
    } finally {
      connect.mockRestore();
    }
  });

  it('pins: the connection goes to the address checked, not to a later answer', async () => {
    const mark = hits.length;
    // Allowed to be private, so both answers pass; the point is which one is connected to.
    const lookup = scriptedLookup({ 'pinned.test': [['127.0.0.1'], ['127.0.0.2']] });
    const guardedFetch = createGuardedFetch({ lookup, allowHosts: ['pinned.test'] });
    const response = await guardedFetch(`http://pinned.test:${port}/pinned`);
    expect(await response.text()).toBe('first');
    expect(lookup.calls).toEqual(['pinned.test']);
    // The host name still travels in the request, the address only decides where it goes.
    expect(hitsSince(mark)).toEqual([
      { server: 'first', path: '/pinned', host: `pinned.test:${port}`, authorization: undefined },
    ]);
  });

  it('allowHosts lets exactly the named hosts through', async () => {
    const loopback = [['127.0.0.1']];
    const lookup = scriptedLookup({
      'mcp.test': loopback,
      'x.mcp.test': loopback,
      'mcp.test.evil': loopback,
      'other.test': loopback,
      'a.corp.test': loopback,
      'corp.test': loopback,
    });
    const guardedFetch = createGuardedFetch({ lookup, allowHosts: ['mcp.test', '*.corp.test'] });
    const mark = hits.length;
    for (const host of ['mcp.test', 'a.corp.test']) {
      const response = await guardedFetch(`http://${host}:${port}/allowed`);
      expect(await response.text()).toBe('first');
    }
    for (const host of ['x.mcp.test', 'mcp.test.evil', 'other.test', 'corp.test']) {
      expect(await fetchErrorCode(guardedFetch(`http://${host}:${port}/refused`))).toBe('PRIVATE_ADDRESS');
    }
    // An allowed name does not open its address to other names, nor to the bare literal.
    expect(await fetchErrorCode(guardedFetch(`http://127.0.0.1:${port}/refused`))).toBe('PRIVATE_ADDRESS');
    expect(hitsSince(mark).map((hit) => hit.path)).toEqual(['/allowed', '/allowed']);
  });

  it('re-checks every redirect hop: an allowed server cannot redirect into a private address', async () => {
    const lookup = scriptedLookup({ 'allowed.test': [['127.0.0.1']], 'internal.test': [['127.0.0.2']] });
    const guardedFetch = createGuardedFetch({ lookup, allowHosts: ['allowed.test'] });
    for (const target of [
      `http://127.0.0.2:${port}/secret`,
      `http://internal.test:${port}/secret`,
      `http://[::ffff:7f00:2]:${port}/secret`,
    ]) {
      const mark = hits.length;
      const start = `http://allowed.test:${port}/redirect?to=${encodeURIComponent(target)}`;
      expect(await fetchErrorCode(guardedFetch(start))).toBe('PRIVATE_ADDRESS');
      // The first hop was served; the private hop never was.
      expect(hitsSince(mark).map((hit) => hit.server)).toEqual(['first']);
    }
    // A redirect chain that stays on allowed ground is followed.
    const mark = hits.length;
    const inner = `/redirect?to=${encodeURIComponent('/done')}`;
    const response = await guardedFetch(`http://allowed.test:${port}/redirect?to=${encodeURIComponent(inner)}`);
    expect(await response.text()).toBe('first');
    expect(hitsSince(mark).map((hit) => hit.path)).toEqual([
      expect.stringMatching(/^\/redirect/),
      '/redirect?to=%2Fdone',
      '/done',
    ]);
  });

  it('hands a manual redirect back unfollowed, bounds redirects, and drops credentials leaving the origin', async () => {
    const lookup = scriptedLookup({ 'allowed.test': [['127.0.0.1']], 'other-allowed.test': [['127.0.0.1']] });
    const guardedFetch = createGuardedFetch({
      lookup,
      allowHosts: ['allowed.test', 'other-allowed.test'],
      maxRedirects: 2,
    });

    const manual = await guardedFetch(`http://allowed.test:${port}/redirect?to=%2Fdone`, { redirect: 'manual' });
    expect(manual.status).toBe(302);
    expect(manual.headers.get('location')).toBe('/done');

    const loop = `/redirect?to=${encodeURIComponent(`/redirect?to=${encodeURIComponent(`/redirect?to=${encodeURIComponent('/done')}`)}`)}`;
    await expect(guardedFetch(`http://allowed.test:${port}${loop}`)).rejects.toBeInstanceOf(TypeError);

    const mark = hits.length;
    const away = `http://other-allowed.test:${port}/done`;
    const response = await guardedFetch(`http://allowed.test:${port}/redirect?to=${encodeURIComponent(away)}`, {
      headers: { authorization: 'Bearer not-for-other-hosts' },
    });
    expect(await response.text()).toBe('first');
    expect(hitsSince(mark).map((hit) => hit.authorization)).toEqual(['Bearer not-for-other-hosts', undefined]);
  });
});

describe('SSRF guard: the guarded fetch inside the MCP SDK transports', () => {
  let streamable: HttpFixture;
  let sse: HttpFixture;

  beforeAll(async () => {
    [streamable, sse] = await Promise.all([startHttpFixture(), startHttpFixture({ sse: true })]);
  });

  afterAll(async () => {
    await Promise.all([streamable?.stop(), sse?.stop()]);
  });

  // The fixtures listen on 127.0.0.1; reach them by a name the guard allows and pins.
  function byName(fixtureUrl: string): URL {
    const url = new URL(fixtureUrl);
    url.hostname = 'mcp.test';
    return url;
  }
  const lookup = scriptedLookup({ 'mcp.test': [['127.0.0.1']] });

  it.each([
    [
      'Streamable HTTP',
      (url: URL, fetch: typeof globalThis.fetch) => new StreamableHTTPClientTransport(url, { fetch }),
    ],
    ['SSE', (url: URL, fetch: typeof globalThis.fetch) => new SSEClientTransport(url, { fetch })],
  ] as const)(
    '%s: lists tools through an allowed, pinned host and is refused without the allowance',
    async (name, open) => {
      const fixture = name === 'SSE' ? sse : streamable;
      const allowed = new Client({ name: 'ssrf-guard-test', version: '0.0.0' });
      await allowed.connect(open(byName(fixture.url), createGuardedFetch({ lookup, allowHosts: ['mcp.test'] })));
      try {
        const { tools } = await allowed.listTools();
        expect(tools.length).toBeGreaterThan(0);
      } finally {
        await allowed.close();
      }

      const before = (await fixture.stats()).initializeCount;
      const refused = new Client({ name: 'ssrf-guard-test', version: '0.0.0' });
      await expect(refused.connect(open(byName(fixture.url), createGuardedFetch({ lookup })))).rejects.toThrow();
      await refused.close().catch(() => undefined);
      expect((await fixture.stats()).initializeCount).toBe(before);
    },
  );
});
