import type { FastifyRequest } from 'fastify';
import type { Principal } from './api-token-set.js';

// Kept beside the request rather than decorated onto it: nothing else can set or overwrite it.
const principals = new WeakMap<FastifyRequest, Principal>();

/** Records who an authenticated request is. */
export function setPrincipal(request: FastifyRequest, principal: Principal): void {
  principals.set(request, principal);
}

/** Who an authenticated request is, or `undefined` before authentication. */
export function principalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}
