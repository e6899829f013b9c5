import { createHash, timingSafeEqual } from 'node:crypto';
import { AgentqError } from '@agentq/shared';

/** SHA-256 of a secret: what {@link tokensMatch} compares. */
export function tokenDigest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first, so
 * neither the content nor the length of the token leaks through timing.
 */
export function tokensMatch(presented: string, expected: string): boolean {
  return timingSafeEqual(tokenDigest(presented), tokenDigest(expected));
}

/** The bearer token of an `Authorization` header, or `undefined`. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

/**
 * The `UNAUTHORIZED` error of a request without a usable token. A caller that sent no token is
 * told to send one; a caller whose token matches none is told so, since sending it again will not
 * help (a restarted `agentq dev` that rotated its token, a token of another deployment). Same
 * status and code either way.
 */
export function unauthorizedError(options: { authorization: string | undefined; hint?: string }): AgentqError {
  const presented = bearerToken(options.authorization);
  return new AgentqError({
    code: 'UNAUTHORIZED',
    message:
      presented === undefined
        ? `Send a token: Authorization: Bearer <AGENTQ_API_TOKEN>${options.hint ? ` (${options.hint})` : ''}`
        : 'Token not recognised: it matches no AGENTQ_API_TOKEN or AGENTQ_API_TOKENS entry of this deployment',
  });
}
