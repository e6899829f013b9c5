import { buildApi, routeTable, type RegisteredRoute, type RouteAccess } from '@agentq/api';
import { API_SCOPES, QUEUE_NAMES, silentLogger, type ApiScope } from '@agentq/shared';
import { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, testConfig } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin } from './admin-helpers.js';
import { rawRequest } from './raw-http.js';

// Build item 1: every route Fastify serves is authorized for exactly the route that serves it,
// however its path is spelled. The routes come from Fastify's own registrations (onRoute), so a
// route added later is swept too, and one added without a declared access fails here.

/** Every non-empty set of scopes, each as a token: the credential that lacks exactly what a route needs. */
const scopeSets: ApiScope[][] = [];
for (let mask = 1; mask < 1 << API_SCOPES.length; mask += 1) {
  scopeSets.push(API_SCOPES.filter((_scope, index) => (mask & (1 << index)) !== 0));
}
const tokenOf = (scopes: readonly ApiScope[]) => `sweep-${scopes.join('.')}-0123456789`;
const tokensVariable = scopeSets
  .map((scopes) => `s-${scopes.join('.')}:${scopes.join(',')}=${tokenOf(scopes)}`)
  .join(';');

/** The scopes that satisfy an access, or `null` when none are needed beyond a valid credential. */
function neededScopes(access: RouteAccess): readonly ApiScope[] | null {
  switch (access.kind) {
    case 'token':
      return access.scope === 'any' ? null : [access.scope];
    case 'page':
      return access.scopes.length === 0 ? null : access.scopes;
    case 'board':
      return ['admin'];
    case 'public':
      return null;
  }
}

/**
 * A concrete path for a route pattern. Bull Board's queue is one the board writes to freely, and
 * its static files are served from a wildcard, sampled with a file that exists.
 */
function samplePath(url: string): string {
  return url
    .replace(/:queueName/g, QUEUE_NAMES.catalogRefresh)
    .replace(/:[A-Za-z]+/g, 'x1')
    .replace(/\*$/, 'favicon.ico');
}

const encode = (character: string, upper: boolean) => {
  const hex = character.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${upper ? hex.toUpperCase() : hex.toLowerCase()}`;
};

/** Many spellings of one path: each character escaped (lower and upper hex), all of them, and the rest. */
export function spellings(path: string): string[] {
  const variants = new Set<string>();
  for (const upper of [false, true]) {
    for (let index = 0; index < path.length; index += 1) {
      variants.add(path.slice(0, index) + encode(path[index] as string, upper) + path.slice(index + 1));
    }
    variants.add(escapeAll(path, upper));
  }
  variants.add(`${path}#frag`);
  variants.add(`${path}#/x`);
  variants.add(`${path};x`);
  variants.add(`${path}?x=1`);
  variants.add(path.endsWith('/') ? path.slice(0, -1) : `${path}/`);
  variants.add(`/${path}`);
  variants.add(path.replace(/\/(?=[^/]*$)/, '//'));
  variants.add(path.replace(/^(\/[^/]+)/, '$1/.'));
  variants.add(path.toUpperCase());
  variants.add(path.replace(/\/([a-z])/g, (_match, letter: string) => `/${letter.toUpperCase()}`));
  variants.delete(path);
  return [...variants];
}

const escapeAll = (path: string, upper: boolean) =>
  [...path].map((character) => (character === '/' ? '/' : encode(character, upper))).join('');

/**
 * The spellings sent over a real socket too, where nothing normalises them: the fragment, dot and
 * doubled-slash forms, the fully escaped path, and the first character of each segment escaped.
 */
function socketSpellings(path: string): string[] {
  const variants = new Set([
    `${path}#frag`,
    `${path}#/x`,
    path.replace(/\/(?=[^/]*$)/, '//'),
    path.replace(/^(\/[^/]+)/, '$1/.'),
  ]);
  for (const upper of [false, true]) {
    variants.add(escapeAll(path, upper));
    for (let index = 1; index < path.length; index += 1) {
      if (path[index - 1] === '/' && path[index] !== '/') {
        variants.add(path.slice(0, index) + encode(path[index] as string, upper) + path.slice(index + 1));
      }
    }
  }
  return [...variants];
}

describe('route scope sweep', () => {
  let ctx: TestContext;
  let app: FastifyInstance;
  let url: string;
  let table: RegisteredRoute[];
  /** The route each swept request was served by (`METHOD pattern`), or null when none matched. */
  const matched = new Map<string, string | null>();
  let sequence = 0;
  const cookies = new Map<string, string>();

  beforeAll(async () => {
    ctx = createTestContext();
    const config = testConfig(ctx, { AGENTQ_API_TOKENS: tokensVariable, AGENTQ_LOGIN_RATE_LIMIT: '1000' });
    app = await buildApi({ config, logger: silentLogger() });
    app.addHook('onResponse', async (request) => {
      const id = request.headers['x-sweep'];
      if (typeof id === 'string')
        matched.set(id, request.is404 ? null : `${request.method} ${request.routeOptions.url}`);
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    table = routeTable(app);
  });

  afterAll(async () => {
    await app?.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await ctx?.close();
  });

  const accessOf = (key: string) => table.find((route) => `${route.method} ${route.url}` === key)?.access;

  /** The credential headers of a token holding `scopes`, as a bearer header or a login session. */
  async function credential(access: RouteAccess, scopes: readonly ApiScope[] | 'all'): Promise<Record<string, string>> {
    const token = scopes === 'all' ? TEST_TOKEN : tokenOf(scopes);
    if (access.kind !== 'page') return { authorization: `Bearer ${token}` };
    let cookie = cookies.get(token);
    if (!cookie) {
      cookie = await adminLogin(url, token);
      cookies.set(token, cookie);
    }
    return { cookie };
  }

  /** Sends a request (inject, or a real socket) and reports its status and the route that served it. */
  async function send(options: { method: string; path: string; headers: Record<string, string>; socket?: boolean }) {
    const id = String((sequence += 1));
    // Same-origin, so the CSRF rule lets the positive checks through (inject's host is localhost).
    const headers = { ...options.headers, 'x-sweep': id, origin: options.socket ? url : 'http://localhost:80' };
    const what = `${options.method} ${options.path}${options.socket ? ' over a socket' : ''}`;
    try {
      const status = options.socket
        ? (await rawRequest(url, { method: options.method, path: options.path, headers })).status
        : (await app.inject({ method: options.method as 'GET', url: options.path, headers })).statusCode;
      return { status, route: matched.get(id) };
    } catch (error) {
      throw new Error(`${what}: ${String(error)}`);
    }
  }

  it('lists every route Fastify serves, each with a declared access', () => {
    expect(table.length).toBeGreaterThan(50);
    for (const route of table) expect(route.access, `${route.method} ${route.url}`).toBeDefined();
    // Each listed route is one Fastify really serves.
    for (const route of table) {
      expect(app.hasRoute({ method: route.method as 'GET', url: route.url }), `${route.method} ${route.url}`).toBe(
        true,
      );
    }
    // Open without credentials: the probes, the favicon and the way to the login form. Anything
    // else declared public must be added here on purpose.
    const open = table
      .filter((route) => route.access?.kind === 'public')
      .map((route) => `${route.method} ${route.url}`);
    expect(open.sort()).toEqual(
      [
        'GET /admin',
        // The admin pages' one script (static, the same for everyone; the CSP forbids inline ones).
        'GET /admin/assets/live-refresh.js',
        'GET /admin/login',
        // The OAuth callback a browser reaches from the authorization server, without the
        // SameSite=Strict session cookie: its single-use state is what authorizes it.
        'GET /admin/oauth/callback',
        'HEAD /admin/oauth/callback',
        'GET /favicon.ico',
        'GET /healthz',
        'GET /readyz',
        'HEAD /admin',
        'HEAD /admin/assets/live-refresh.js',
        'HEAD /admin/login',
        'HEAD /favicon.ico',
        'HEAD /healthz',
        'HEAD /readyz',
        'POST /admin/login',
      ].sort(),
    );
  });

  it(
    'serves no route to a credential lacking its scope, under any spelling of its path',
    { timeout: 240_000 },
    async () => {
      let sameRoute = 0;
      for (const route of table) {
        const access = route.access as RouteAccess;
        const needed = neededScopes(access);
        if (needed === null) continue;
        // Every scope but the ones the route needs.
        const held = API_SCOPES.filter((scope) => !needed.includes(scope));
        const headers = await credential(access, held);
        const plain = samplePath(route.url);
        const key = `${route.method} ${route.url}`;
        const first = await send({ method: route.method, path: plain, headers });
        expect(first.route, key).toBe(key);
        expect(first.status, key).toBe(403);
        for (const [path, socket] of [
          ...spellings(plain).map((spelling) => [spelling, false] as const),
          ...socketSpellings(plain).map((spelling) => [spelling, true] as const),
        ]) {
          const answer = await send({ method: route.method, path, headers, socket });
          const what = `${key} as ${socket ? 'socket ' : ''}${path}`;
          // Served by no route: the router's 404, or a 400 for a request line it cannot route.
          if (answer.route === null || answer.route === undefined) {
            expect([400, 404], what).toContain(answer.status);
            continue;
          }
          const served = accessOf(answer.route as string);
          expect(served, `${what} served by ${answer.route}`).toBeDefined();
          const servedNeeds = neededScopes(served as RouteAccess);
          // Served by another route this credential may call: nothing to refuse.
          if (servedNeeds === null || servedNeeds.some((scope) => held.includes(scope))) continue;
          if (answer.route === key) sameRoute += 1;
          expect(answer.status, `${what} served by ${answer.route}`).toBe(403);
        }
      }
      // The sweep reached the routes through their odd spellings, not only through 404s.
      expect(sameRoute).toBeGreaterThan(table.length * 4);
    },
  );

  it('refuses every credentialed route to anonymous callers, spelled plainly or encoded', async () => {
    for (const route of table) {
      const access = route.access as RouteAccess;
      if (access.kind === 'public') continue;
      const plain = samplePath(route.url);
      const encoded = escapeAll(plain, false);
      for (const path of [plain, encoded, `${plain}#x`]) {
        const answer = await send({ method: route.method, path, headers: {}, socket: path !== plain });
        const what = `${route.method} ${route.url} as ${path}`;
        // 401 for the API, or the login form for a browser on an admin page.
        expect([401, 303], what).toContain(answer.status);
      }
    }
  });

  it('does not refuse a credential holding the scope, on the plain spelling', async () => {
    for (const route of table) {
      const access = route.access as RouteAccess;
      if (access.kind === 'public') continue;
      // A fresh session each time: one of these routes is the logout.
      if (access.kind === 'page') cookies.clear();
      const headers = await credential(access, 'all');
      const key = `${route.method} ${route.url}`;
      const answer = await send({ method: route.method, path: samplePath(route.url), headers });
      expect(answer.route, key).toBe(key);
      expect([401, 403], key).not.toContain(answer.status);
    }
  });
});

describe('a route without a declared access', () => {
  let ctx: TestContext;

  beforeAll(() => {
    ctx = createTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('keeps the API from starting', async () => {
    const app = await buildApi({ config: testConfig(ctx), logger: silentLogger() });
    try {
      app.get('/v1/forgotten', async () => ({ served: true }));
      await expect(app.ready()).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
    } finally {
      await app.close().catch(() => undefined);
    }
  });

  it('is refused when its access is not one the API knows', async () => {
    const app = await buildApi({ config: testConfig(ctx), logger: silentLogger() });
    try {
      app.get('/v1/odd', { config: { access: { kind: 'odd' } as unknown as RouteAccess } }, async () => ({
        served: true,
      }));
      const answer = await app.inject({
        method: 'GET',
        url: '/v1/odd',
        headers: { authorization: `Bearer ${TEST_TOKEN}` },
      });
      expect(answer.statusCode).toBe(403);
      expect(answer.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    } finally {
      await app.close();
    }
  });
});
