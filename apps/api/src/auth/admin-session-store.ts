import { createHash, createHmac, randomBytes } from 'node:crypto';
import { AdminSessionRecords, type RedisConnection } from '@agentq/store';
import type { ApiTokenSet, Principal } from './api-token-set.js';
import { tokensMatch } from './token-check.js';

/** Name of the HttpOnly session cookie of the admin pages. */
export const SESSION_COOKIE = 'agentq_session';

/** How long a login lasts. */
export const SESSION_TTL_MS = 12 * 3600 * 1000;

/** A live admin session. */
export interface AdminSession {
  /** The cookie value; secret. */
  id: string;
  principal: Principal;
  /** The CSRF token of this session, for forms and the `x-csrf-token` header. */
  csrf: string;
}

/**
 * Admin login sessions, kept server-side in Redis (`P:admin.session.<sha256 of the cookie>`), so
 * that logging out ends a session for good: the cookie alone proves nothing once its record is
 * gone. Records are keyed by a digest of the cookie, so reading Redis does not hand out live
 * sessions. A session records the name of the token that logged in; when that token is rotated or
 * removed, its sessions stop working.
 */
export class AdminSessionStore {
  private readonly records: AdminSessionRecords;

  constructor(private readonly options: { redis: RedisConnection; prefix: string; tokens: ApiTokenSet }) {
    this.records = new AdminSessionRecords({ redis: options.redis, prefix: options.prefix });
  }

  /** Starts a session for `principal` and returns the cookie value. */
  async create(principal: Principal, now = Date.now()): Promise<string> {
    const tokenDigest = this.options.tokens.digestOf(principal.name);
    if (!tokenDigest) throw new Error(`unknown token name ${principal.name}`);
    const id = randomBytes(32).toString('base64url');
    const record = { tokenName: principal.name, tokenDigest, createdAt: now };
    await this.records.write({ sessionDigest: digestOf(id), record, ttlMs: SESSION_TTL_MS });
    return id;
  }

  /** The live session of a cookie value, or `undefined`. */
  async read(id: string | undefined): Promise<AdminSession | undefined> {
    if (!id || !/^[A-Za-z0-9_-]{43}$/.test(id)) return undefined;
    const record = await this.records.read(digestOf(id));
    if (!record) return undefined;
    const principal = this.options.tokens.resolve(record.tokenName, record.tokenDigest);
    if (!principal) return undefined;
    return { id, principal, csrf: csrfTokenFor(id) };
  }

  /** Ends a session on the server. */
  async destroy(id: string | undefined): Promise<void> {
    if (!id) return;
    await this.records.delete(digestOf(id));
  }
}

/** The digest a session's record is kept under: its cookie value never reaches Redis. */
function digestOf(sessionId: string): string {
  return createHash('sha256').update(sessionId).digest('hex');
}

/**
 * The CSRF token of a session: an HMAC keyed by the session's secret cookie value, so it is bound
 * to that session and unknowable to a page that cannot read the HttpOnly cookie.
 */
export function csrfTokenFor(sessionId: string): string {
  return createHmac('sha256', sessionId).update('agentq-csrf').digest('base64url');
}

/** Whether a submitted CSRF token belongs to the session. */
export function isValidCsrf(session: AdminSession, submitted: string | undefined): boolean {
  if (!submitted) return false;
  return tokensMatch(submitted, session.csrf);
}
