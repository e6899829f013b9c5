import { randomBytes } from 'node:crypto';
import { signWithToken, tokensMatch } from './token-check.js';

/** Name of the HttpOnly session cookie of the admin pages. */
export const SESSION_COOKIE = 'agentq_session';

/** How long a login lasts. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

/**
 * A session is `<issuedAt>.<nonce>.<hmac>`, signed with the API token. It is stateless, so any API
 * replica accepts it, and rotating the token logs everybody out.
 */
export function createSession(apiToken: string, now = Date.now()): string {
  const body = `${now}.${randomBytes(12).toString('hex')}`;
  return `${body}.${signWithToken(apiToken, `session:${body}`)}`;
}

/** Whether a session cookie is genuine and not expired. */
export function isValidSession(apiToken: string, session: string | undefined, now = Date.now()): boolean {
  if (!session) return false;
  const parts = session.split('.');
  if (parts.length !== 3) return false;
  const [issuedAt, nonce, signature] = parts as [string, string, string];
  const issued = Number(issuedAt);
  if (!Number.isFinite(issued) || issued > now + 60_000 || now - issued > SESSION_TTL_MS) return false;
  return tokensMatch(signature, signWithToken(apiToken, `session:${issuedAt}.${nonce}`));
}

/**
 * The CSRF token of a session: bound to it, so a token lifted from one session is useless in
 * another, and unknowable to a page that cannot read the HttpOnly cookie.
 */
export function csrfTokenFor(apiToken: string, session: string): string {
  return signWithToken(apiToken, `csrf:${session}`);
}

/** Whether a submitted CSRF token belongs to the session. */
export function isValidCsrf(apiToken: string, session: string, submitted: string | undefined): boolean {
  if (!submitted) return false;
  return tokensMatch(submitted, csrfTokenFor(apiToken, session));
}
