import { AgentqError, type ApiScope } from '@agentq/shared';
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';

/**
 * Who may call a route. Every route declares it where it is defined (as `config.access`), and the
 * authorization hook reads it from the route Fastify matched, never from the request line: the
 * router decodes `%6bbs` to `kbs` and drops `#x`, so any check on the raw URL would judge a
 * different path from the one that is served.
 */
export type RouteAccess =
  /** Anyone, with no credentials: the probes, the favicon and the login form. */
  | { kind: 'public' }
  /** A bearer token; `any` for every valid token, else one that holds `scope`. */
  | { kind: 'token'; scope: ApiScope | 'any' }
  /**
   * An admin page or form: a login session holding one of `scopes` (any session when empty).
   * Without a session a browser is sent to the login form; without the scope it gets a 403 page.
   */
  | { kind: 'page'; scopes: readonly ApiScope[] }
  /**
   * Bull Board: the admin scope, by session or bearer token. `page` marks its HTML and assets, where
   * a browser without a session is sent to the login form instead of getting a 401.
   */
  | { kind: 'board'; page: boolean };

/** Which surface a route belongs to: `admin` routes get the admin headers and CSRF rule. */
export type RouteSurface = 'api' | 'admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; a route without it is refused (see {@link RouteAccess}). */
    access?: RouteAccess;
    /** The admin surface (pages and Bull Board) wants Redis before it authenticates. */
    surface?: RouteSurface;
    /** Set on the login form only: it checks `Origin` itself, since no session exists yet. */
    csrfExempt?: boolean;
  }
}

/** One registered route as Fastify was given it: what the route table lists. */
export interface RegisteredRoute {
  method: string;
  /** The route's pattern, for example `/v1/runs/:runId`. */
  url: string;
  access: RouteAccess | undefined;
  surface: RouteSurface | undefined;
}

/** A route as its onRoute hook saw it: the URL then, and the options whose config may still change. */
interface TrackedRoute {
  url: string;
  route: RouteOptions;
}

const tables = new WeakMap<FastifyInstance, TrackedRoute[]>();

/**
 * Records every route registered on `app` (plugins' and automatic `HEAD` routes included), and
 * refuses to start when one of them declares no access: a route added without thinking about who
 * may call it cannot be served. Call it on the root instance before any route is registered.
 */
export function trackRouteAccess(app: FastifyInstance): void {
  const table: TrackedRoute[] = [];
  tables.set(app, table);
  // The options object is kept, not copied: a plugin's own onRoute hook (Bull Board's mount)
  // declares the access of its routes after this hook has run. The URL is copied: Fastify reuses
  // the object for the `prefix/` twin of a prefixed plugin's `/` route, which it serves as the
  // same route (same config, same `routeOptions.url`).
  app.addHook('onRoute', (route) => {
    table.push({ url: route.url, route });
  });
  app.addHook('onReady', async () => {
    const undeclared = routeTable(app).filter((route) => route.access === undefined);
    if (undeclared.length > 0) {
      throw new AgentqError({
        code: 'CONFIG_INVALID',
        message: `Routes without a declared access: ${undeclared.map((route) => `${route.method} ${route.url}`).join(', ')}`,
      });
    }
  });
}

/** The routes of an app set up with {@link trackRouteAccess}, one entry per method, with their access. */
export function routeTable(app: FastifyInstance): RegisteredRoute[] {
  return (tables.get(app) ?? []).flatMap(({ url, route }) =>
    (Array.isArray(route.method) ? route.method : [route.method]).map((method) => ({
      method,
      url,
      access: route.config?.access,
      surface: route.config?.surface,
    })),
  );
}

/** The access the matched route declares, or `undefined` for none (which is refused). */
export function accessOf(request: FastifyRequest): RouteAccess | undefined {
  return request.routeOptions.config.access;
}
