import { createHash, timingSafeEqual } from 'node:crypto';

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
