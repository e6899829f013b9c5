import { safeParseJson } from '@agentq/shared';
import { z } from 'zod';
import { keyNames, type KeyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';

const adminSessionRecordSchema = z.strictObject({
  tokenName: z.string().min(1),
  tokenDigest: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: z.number().int().nonnegative(),
});

/** What the server keeps of one admin login: the token that logged in, and when. */
export type AdminSessionRecord = z.output<typeof adminSessionRecordSchema>;

/**
 * Admin login session records (`P:admin.session.<digest>`), keyed by the SHA-256 of the session's
 * cookie value, so that reading Redis never hands out a live session. The API decides what a record
 * grants; this only stores it, with a time to live.
 */
export class AdminSessionRecords {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;

  constructor(options: { redis: RedisConnection; prefix: string }) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
  }

  /** Stores a record (validated) for `ttlMs`. */
  async write(options: { sessionDigest: string; record: AdminSessionRecord; ttlMs: number }): Promise<void> {
    const record = adminSessionRecordSchema.parse(options.record);
    await this.redis.set(this.keys.adminSession(options.sessionDigest), JSON.stringify(record), 'PX', options.ttlMs);
  }

  /** The live record, or `undefined` when it expired, was deleted or does not parse. */
  async read(sessionDigest: string): Promise<AdminSessionRecord | undefined> {
    const text = await this.redis.get(this.keys.adminSession(sessionDigest));
    if (text === null) return undefined;
    const record = safeParseJson(text, adminSessionRecordSchema, 'admin session');
    return record.success ? record.data : undefined;
  }

  /** Ends a session for good. */
  async delete(sessionDigest: string): Promise<void> {
    await this.redis.del(this.keys.adminSession(sessionDigest));
  }
}
