import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Compares a presented secret with the expected one in constant time. Both are hashed first, so
 * neither the content nor the length of the token leaks through timing.
 */
export function tokensMatch(presented: string, expected: string): boolean {
  const left = createHash('sha256').update(presented).digest();
  const right = createHash('sha256').update(expected).digest();
  return timingSafeEqual(left, right);
}

/** The bearer token of an `Authorization` header, or `undefined`. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  return match?.[1]?.trim();
}

/** HMAC of `text` keyed by the API token, hex. Sessions and CSRF tokens derive from it. */
export function signWithToken(apiToken: string, text: string): string {
  return createHmac('sha256', apiToken).update(text).digest('hex');
}
