import type { ApiScope } from '@agentq/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_COOKIE, isValidCsrf, type AdminSession, type AdminSessionStore } from '../auth/admin-session-store.js';
import type { ApiTokenSet, Principal } from '../auth/api-token-set.js';
import { setPrincipal } from '../auth/principal.js';
import { bearerToken } from '../auth/token-check.js';

/**
 * Headers of every response of the admin surface (the pages and Bull Board). The policy allows only this origin. Styles may be
 * inline because Bull Board's page and ours carry inline styles; scripts may not, and nothing may
 * frame the pages (clickjacking an Approve button is the attack this stops).
 */
export const ADMIN_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** Header that carries the CSRF token of a session on requests that are not form posts. */
export const CSRF_HEADER = 'x-csrf-token';

/** How a request to `/admin` proved who it is. */
export interface AdminAuth {
  principal: Principal;
  /** Set when the session cookie authenticated it; absent for a bearer token. */
  session?: AdminSession;
}

/**
 * Whether the request's `Origin` is this server, by scheme and host as the request reached it.
 * `undefined` when the request has no `Origin`. `Origin: null` (sandboxed frames, some redirects)
 * is never same-origin.
 */
export function isSameOrigin(request: FastifyRequest): boolean | undefined {
  const origin = request.headers.origin;
  if (origin === undefined) return undefined;
  try {
    const given = new URL(origin);
    const own = new URL(`${request.protocol}://${request.host}`);
    return given.origin === own.origin;
  } catch {
    return false;
  }
}

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The CSRF rule of `/admin`: a request that changes something and is authenticated by the session
 * cookie must either come from this origin (`Origin` equal to the server's scheme and host) or
 * carry the session's CSRF token (form field `_csrf` or header `x-csrf-token`). A cross-origin
 * `Origin`, `null` included, is refused even with a token. Requests that authenticate with the
 * bearer header are exempt: a browser never adds that header on its own.
 */
export function passesCsrf(request: FastifyRequest, auth: AdminAuth | undefined): boolean {
  if (safeMethods.has(request.method)) return true;
  if (!auth?.session) return true;
  const sameOrigin = isSameOrigin(request);
  if (sameOrigin !== undefined) return sameOrigin;
  const header = request.headers[CSRF_HEADER];
  const body = request.body as { _csrf?: unknown } | undefined;
  const submitted = typeof header === 'string' ? header : typeof body?._csrf === 'string' ? body._csrf : undefined;
  return isValidCsrf(auth.session, submitted);
}

/** Authenticates requests under `/admin` by session cookie or bearer token, once per request. */
export function createAdminAuth(options: { tokens: ApiTokenSet; sessions: AdminSessionStore }) {
  const seen = new WeakMap<FastifyRequest, Promise<AdminAuth | undefined>>();
  const authenticate = async (request: FastifyRequest): Promise<AdminAuth | undefined> => {
    const session = await options.sessions.read(request.cookies[SESSION_COOKIE]);
    if (session) {
      setPrincipal(request, session.principal);
      return { principal: session.principal, session };
    }
    const principal = options.tokens.authenticate(bearerToken(request.headers.authorization));
    if (!principal) return undefined;
    setPrincipal(request, principal);
    return { principal };
  };
  return {
    authenticate(request: FastifyRequest): Promise<AdminAuth | undefined> {
      let found = seen.get(request);
      if (!found) {
        found = authenticate(request);
        seen.set(request, found);
      }
      return found;
    },
  };
}

/** The admin authenticator of {@link createAdminAuth}. */
export type AdminAuthenticator = ReturnType<typeof createAdminAuth>;

/** Whether the principal holds one of `scopes`. */
export function hasScope(principal: Principal, ...scopes: ApiScope[]): boolean {
  return scopes.some((scope) => principal.scopes.has(scope));
}

/** Answers 403 `CSRF` in the standard error shape. */
export function csrfRefusal(reply: FastifyReply) {
  return reply.status(403).send({
    error: { code: 'CSRF', message: 'Send the CSRF token or make the request from this origin' },
  });
}
