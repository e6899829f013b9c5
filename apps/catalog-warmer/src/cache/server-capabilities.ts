import { safeParseJson } from '@agentq/shared';
import { keyNames, type RedisConnection } from '@agentq/store';
import { z } from 'zod';

const capabilitySchema = z.strictObject({
  definitionHash: z.string().min(1),
  listChanged: z.boolean(),
  seenAt: z.number().int().nonnegative(),
});

/** What the last successful read learned about a server's `tools/list_changed` support. */
export type ServerCapability = z.output<typeof capabilitySchema>;

/**
 * Reads and writes `P:warmer.capabilities` (`keyNames().warmerCapabilities`; hash, server id →
 * JSON): whether a server declared `tools.listChanged`, per definition hash, written by every
 * successful refresh. A watcher owner reads it before it connects, so servers that cannot notify
 * are polled without a probe connection at every claim. Warmer-private; not part of the catalog
 * contract. Failures are the caller's to ignore: it is a hint.
 */
export class ServerCapabilities {
  private readonly redis: RedisConnection;
  private readonly key: string;

  constructor(options: { redis: RedisConnection; prefix: string }) {
    this.redis = options.redis;
    this.key = keyNames(options.prefix).warmerCapabilities;
  }

  /** The capability recorded for this definition hash, if any. */
  async read(serverId: string, definitionHash: string): Promise<ServerCapability | undefined> {
    const parsed = safeParseJson(await this.redis.hget(this.key, serverId), capabilitySchema);
    return parsed.success && parsed.data.definitionHash === definitionHash ? parsed.data : undefined;
  }

  async write(serverId: string, capability: ServerCapability): Promise<void> {
    await this.redis.hset(this.key, serverId, JSON.stringify(capabilitySchema.parse(capability)));
  }

  async forget(serverId: string): Promise<void> {
    await this.redis.hdel(this.key, serverId);
  }
}
