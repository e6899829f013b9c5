import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { AgentqError, safeParseJson } from '@agentq/shared';
import { runStoreScript } from '../scripts/store-scripts.js';
import type { KeyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { z } from 'zod';

/** The key names the token store uses (a part of `keyNames`). */
export type OAuthKeyNames = Pick<KeyNames, 'oauthTokens' | 'oauthRefreshLease' | 'oauthFlow'>;

const tokensSchema = z.looseObject({
  access_token: z.string(),
  token_type: z.string(),
  refresh_token: z.string().optional(),
  expires_in: z.number().optional(),
  scope: z.string().optional(),
  id_token: z.string().optional(),
  issuer: z.string().optional(),
});

/** One server's OAuth state as stored (encrypted) in Redis. */
export const storedOAuthStateSchema = z.strictObject({
  /**
   * What the state was obtained for (server URL, grant and client, as written in the definition):
   * a definition that changes any of them starts from nothing rather than present old tokens.
   */
  binding: z.string(),
  tokens: tokensSchema.optional(),
  /** When the access token expires (epoch ms), from `expires_in` at the time it was saved. */
  expiresAt: z.number().optional(),
  /** The server refused this access token before it expired: refresh it before the next use. */
  rejected: z.boolean().optional(),
  /**
   * Step-up: the server refused the access token for lacking scopes (403 `insufficient_scope`).
   * The granted and the asked-for scopes, space-separated: the next authorization requests them.
   */
  pendingScope: z.string().optional(),
  /** A client registered dynamically (RFC 7591) or from a client ID metadata document. */
  client: z.looseObject({ client_id: z.string() }).optional(),
  /** Discovery results (the SDK's `OAuthDiscoveryState`), so that later connects skip discovery. */
  discovery: z.looseObject({ authorizationServerUrl: z.string() }).optional(),
});

/** One server's OAuth state. */
export type StoredOAuthState = z.output<typeof storedOAuthStateSchema>;

/** An authorization-code flow an operator started, waiting for its callback. */
export const oauthFlowSchema = z.strictObject({
  serverId: z.string(),
  binding: z.string(),
  codeVerifier: z.string(),
  redirectUrl: z.string(),
  startedAt: z.number(),
});

/** A started authorization-code flow. */
export type OAuthFlow = z.output<typeof oauthFlowSchema>;

/** Options of {@link OAuthTokenStore}. */
export interface OAuthTokenStoreOptions {
  redis: RedisConnection;
  keys: OAuthKeyNames;
  /** `AGENTQ_SECRET_KEY`: 32 bytes, base64. */
  secretKey: string;
  /** How long a refresh lease lasts if its holder dies. @default 15000 */
  refreshLeaseMs?: number;
  /** How long a started authorization-code flow waits for its callback. @default 600000 */
  flowTtlMs?: number;
}

const ivBytes = 12;
const tagBytes = 16;
const version = 'v1';

/**
 * The one owner of OAuth records in Redis: a server's tokens and registered client, the refresh
 * lease, and started authorization-code flows. Every record is encrypted with AES-256-GCM under
 * `AGENTQ_SECRET_KEY`, with the record's key as additional data, so a record copied to another
 * key (another server) does not decrypt.
 */
export class OAuthTokenStore {
  private readonly redis: RedisConnection;
  private readonly keys: OAuthKeyNames;
  private readonly key: Buffer;
  private readonly refreshLeaseMs: number;
  /** How long a started authorization-code flow waits for its callback, in ms. */
  readonly flowTtlMs: number;

  constructor(options: OAuthTokenStoreOptions) {
    this.redis = options.redis;
    this.keys = options.keys;
    this.key = Buffer.from(options.secretKey, 'base64');
    if (this.key.length !== 32) {
      throw new AgentqError({
        code: 'CONFIG_INVALID',
        field: 'AGENTQ_SECRET_KEY',
        message: 'AGENTQ_SECRET_KEY must be 32 bytes in base64',
      });
    }
    this.refreshLeaseMs = options.refreshLeaseMs ?? 15_000;
    this.flowTtlMs = options.flowTtlMs ?? 600_000;
  }

  /** The server's state, or `undefined` when there is none (or it no longer decrypts or parses). */
  async read(serverId: string): Promise<StoredOAuthState | undefined> {
    const key = this.keys.oauthTokens(serverId);
    return this.open(key, await this.redis.get(key), storedOAuthStateSchema);
  }

  /**
   * The server's state with the version it was read at (the stored text; `''` when there was
   * none), for {@link writeIfUnchanged}.
   */
  async readVersioned(serverId: string): Promise<{ state: StoredOAuthState | undefined; version: string }> {
    const key = this.keys.oauthTokens(serverId);
    const text = await this.redis.get(key);
    return { state: this.open(key, text, storedOAuthStateSchema), version: text ?? '' };
  }

  /** Replaces the server's state. */
  async write(serverId: string, state: StoredOAuthState): Promise<void> {
    const key = this.keys.oauthTokens(serverId);
    await this.redis.set(key, this.seal(key, storedOAuthStateSchema.parse(state)));
  }

  /**
   * Replaces the server's state only while it is still the one read at `version` (see
   * {@link readVersioned}): a write based on that read never undoes a delete (a deauthorize) or
   * another process's write made since. `false` when it changed: nothing was written.
   */
  async writeIfUnchanged(serverId: string, version: string, state: StoredOAuthState): Promise<boolean> {
    const key = this.keys.oauthTokens(serverId);
    const sealed = this.seal(key, storedOAuthStateSchema.parse(state));
    return (await runStoreScript(this.redis, 'valueCompareAndSet', [key], [version, sealed])) === 1;
  }

  /** Deletes the server's tokens and registered client; `true` when there were any. */
  async delete(serverId: string): Promise<boolean> {
    return (await this.redis.del(this.keys.oauthTokens(serverId))) > 0;
  }

  /**
   * Runs `refresh` while holding the server's refresh lease (`SET NX PX`), so that one process
   * at a time uses a refresh token. `refresh` gets a signal that aborts at two thirds of the
   * lease's TTL: its requests must end while the lease is still its own, or a second holder
   * would send the same refresh token. A process that finds the lease taken waits for it to go
   * (at most its TTL) and returns `undefined`: it should read the state its holder wrote.
   */
  async withRefreshLease<T>(
    serverId: string,
    refresh: (deadline: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T | undefined> {
    const key = this.keys.oauthRefreshLease(serverId);
    const owner = randomBytes(12).toString('base64url');
    const acquired = await this.redis.set(key, owner, 'PX', this.refreshLeaseMs, 'NX');
    if (acquired === 'OK') {
      try {
        return await refresh(AbortSignal.timeout(Math.floor((this.refreshLeaseMs * 2) / 3)));
      } finally {
        // Released only by its owner: a lease that expired and was taken by another stays theirs.
        await runStoreScript(this.redis, 'leaseRelease', [key], [owner]).catch(() => undefined);
      }
    }
    const deadline = Date.now() + this.refreshLeaseMs;
    while (Date.now() < deadline && (await this.redis.exists(key)) === 1) {
      signal?.throwIfAborted();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return undefined;
  }

  /** Records a started flow under its `state`, for `flowTtlMs`. */
  async saveFlow(state: string, flow: OAuthFlow): Promise<void> {
    const key = this.keys.oauthFlow(state);
    await this.redis.set(key, this.seal(key, oauthFlowSchema.parse(flow)), 'PX', this.flowTtlMs);
  }

  /**
   * Takes the flow started under `state` (`GETDEL`): a second callback with the same `state`
   * finds nothing, and so does one after the flow expired.
   */
  async takeFlow(state: string): Promise<OAuthFlow | undefined> {
    const key = this.keys.oauthFlow(state);
    return this.open(key, await this.redis.getdel(key), oauthFlowSchema);
  }

  private seal(key: string, value: unknown): string {
    const iv = randomBytes(ivBytes);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(key));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return `${version}.${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')}`;
  }

  private open<S extends z.ZodType>(key: string, text: string | null, schema: S): z.output<S> | undefined {
    if (text === null || !text.startsWith(`${version}.`)) return undefined;
    const raw = Buffer.from(text.slice(version.length + 1), 'base64');
    if (raw.length < ivBytes + tagBytes) return undefined;
    let plain: string;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, ivBytes));
      decipher.setAAD(Buffer.from(key));
      decipher.setAuthTag(raw.subarray(ivBytes, ivBytes + tagBytes));
      plain = Buffer.concat([decipher.update(raw.subarray(ivBytes + tagBytes)), decipher.final()]).toString('utf8');
    } catch {
      // Another key (rotated) or a tampered record: as good as none, the server needs authorizing again.
      return undefined;
    }
    const parsed = safeParseJson(plain, schema, `OAuth record ${key}`);
    return parsed.success ? parsed.data : undefined;
  }
}
