import { timingSafeEqual } from 'node:crypto';
import { AgentqError, API_SCOPES, DEFAULT_TOKEN_NAME, type ApiScope, type Config } from '@agentq/shared';
import { tokenDigest } from './token-check.js';

/** Who a request is: the name of the token it proved, and what that token may do. */
export interface Principal {
  /** The token's name, recorded as `decidedBy`. */
  name: string;
  scopes: ReadonlySet<ApiScope>;
}

/** The API tokens of a deployment, checked in constant time. */
export interface ApiTokenSet {
  /** The principal of a presented token, or `undefined` when it matches none. */
  authenticate(presented: string | undefined): Principal | undefined;
  /**
   * The principal named `name` if its token still has the digest `digest` (see
   * {@link ApiTokenSet.digestOf}): a rotated or removed token no longer resolves.
   */
  resolve(name: string, digest: string): Principal | undefined;
  /** A digest of the named token, stored with a login session to notice rotation. */
  digestOf(name: string): string | undefined;
}

interface Entry {
  principal: Principal;
  digest: Buffer;
}

/**
 * Builds the token set from `AGENTQ_API_TOKEN` (all scopes, named `default`) and
 * `AGENTQ_API_TOKENS`. Throws `CONFIG_INVALID` when neither is set.
 */
export function createApiTokenSet(config: Pick<Config, 'apiToken' | 'apiTokens'>): ApiTokenSet {
  const entries: Entry[] = [];
  if (config.apiToken) {
    entries.push({
      principal: { name: DEFAULT_TOKEN_NAME, scopes: new Set(API_SCOPES) },
      digest: tokenDigest(config.apiToken),
    });
  }
  for (const token of config.apiTokens ?? []) {
    entries.push({ principal: { name: token.name, scopes: new Set(token.scopes) }, digest: tokenDigest(token.token) });
  }
  if (entries.length === 0) {
    throw new AgentqError({
      code: 'CONFIG_INVALID',
      field: 'AGENTQ_API_TOKEN',
      message: 'AGENTQ_API_TOKEN (at least 16 characters) or AGENTQ_API_TOKENS must be set to start the API',
    });
  }
  // A salted digest for sessions: the stored value says nothing usable about the token itself.
  const sessionDigest = (entry: Entry) => tokenDigest(`agentq-session:${entry.digest.toString('hex')}`).toString('hex');
  return {
    authenticate(presented) {
      if (presented === undefined || presented === '') return undefined;
      const digest = tokenDigest(presented);
      let found: Principal | undefined;
      // Every entry is compared, matched or not, so the time taken does not say which one matched.
      for (const entry of entries) {
        if (timingSafeEqual(digest, entry.digest) && !found) found = entry.principal;
      }
      return found;
    },
    resolve(name, digest) {
      const entry = entries.find((candidate) => candidate.principal.name === name);
      if (!entry) return undefined;
      const expected = Buffer.from(sessionDigest(entry), 'hex');
      const given = Buffer.from(digest, 'hex');
      return given.length === expected.length && timingSafeEqual(given, expected) ? entry.principal : undefined;
    },
    digestOf(name) {
      const entry = entries.find((candidate) => candidate.principal.name === name);
      return entry ? sessionDigest(entry) : undefined;
    },
  };
}
