import type { FastifyReply, FastifyRequest } from 'fastify';
import { hasScope, type AdminAuthenticator } from '../admin/admin-guard.js';
import { forbiddenPage } from '../admin/admin-routes.js';
import type { ApiTokenSet } from '../auth/api-token-set.js';
import { setPrincipal } from '../auth/principal.js';
import { accessOf } from '../auth/route-access.js';
import { bearerToken, unauthorizedError } from '../auth/token-check.js';

/** Options of {@link createRouteAuthorizer}. */
export interface RouteAuthorizerOptions {
  tokens: ApiTokenSet;
  /** Sessions and bearer tokens of the admin surface. */
  adminAuth: AdminAuthenticator;
}

/**
 * The `onRequest` hook that decides every request by the access its matched route declares
 * (`config.access`). Nothing here reads the request line: Fastify has already decoded and routed
 * it, so whatever the spelling, the route that will serve it is the route that is checked. A route
 * without a declared access is refused. Unmatched requests pass to the not-found handler, which
 * authenticates before it answers 404.
 *
 * Refusals are sent here rather than thrown, so they keep the API's error shape on Bull Board's
 * routes too (its plugin installs its own error handler).
 */
export function createRouteAuthorizer(options: RouteAuthorizerOptions) {
  const { tokens, adminAuth } = options;
  const refuse = (reply: FastifyReply, status: number, code: string, message: string) => {
    if (status === 401) void reply.header('www-authenticate', 'Bearer');
    return reply.status(status).send({ error: { code, message } });
  };
  const toLogin = (request: FastifyRequest, reply: FastifyReply) =>
    // Back to the page after login; the login form accepts only local admin paths as `next`.
    request.method === 'GET' || request.method === 'HEAD'
      ? reply.redirect(`/admin/login?next=${encodeURIComponent(request.url)}`, 303)
      : reply.redirect('/admin/login', 303);

  return async function authorizeRoute(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    if (request.is404) return undefined;
    const access = accessOf(request);
    switch (access?.kind) {
      case 'public':
        return undefined;
      case 'token': {
        const principal = tokens.authenticate(bearerToken(request.headers.authorization));
        if (!principal) {
          return refuse(
            reply,
            401,
            'UNAUTHORIZED',
            unauthorizedError({ authorization: request.headers.authorization }).message,
          );
        }
        setPrincipal(request, principal);
        if (access.scope !== 'any' && !hasScope(principal, access.scope)) {
          return refuse(
            reply,
            403,
            'FORBIDDEN',
            `The token ${principal.name} lacks the ${access.scope} scope this route needs`,
          );
        }
        return undefined;
      }
      case 'page': {
        const found = await adminAuth.authenticate(request);
        if (!found?.session) return toLogin(request, reply);
        if (access.scopes.length > 0 && !hasScope(found.session.principal, ...access.scopes)) {
          return forbiddenPage(reply, found.session, access.scopes);
        }
        return undefined;
      }
      case 'board': {
        const found = await adminAuth.authenticate(request);
        if (!found) {
          return access.page && request.method === 'GET'
            ? toLogin(request, reply)
            : refuse(
                reply,
                401,
                'UNAUTHORIZED',
                unauthorizedError({ authorization: request.headers.authorization, hint: 'or log in at /admin/login' })
                  .message,
              );
        }
        if (!hasScope(found.principal, 'admin')) {
          return refuse(
            reply,
            403,
            'FORBIDDEN',
            `The token ${found.principal.name} lacks the admin scope Bull Board needs`,
          );
        }
        return undefined;
      }
      default:
        // Fail closed: a route nobody declared an access for is served to no one.
        return refuse(reply, 403, 'FORBIDDEN', 'This route declares no access');
    }
  };
}
