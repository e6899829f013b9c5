import { type KeyNames, keyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';

/** Reads a server's session generation; what the watcher and the worker pools compare on use. */
export interface SessionGenerationReader {
  /** The server's current session generation (`''` before any restart). */
  current(serverId: string): Promise<string>;
}

/**
 * The session generation of each MCP server (`keyNames(prefix).serverSession(serverId)`): a
 * counter that `restartServer` bumps, so that every process holding a session to that server opens
 * a new one. The warmer's watcher and every worker's MCP client pool remember the generation they
 * connected under and compare it on use, before they borrow their session again.
 *
 * A value compared on use, not a message: a worker that is busy, disconnected or starting when the
 * restart happens still sees it on its next call. The message `renew` publishes only tells
 * processes that cache the value to read it again now.
 */
export class ServerSessions implements SessionGenerationReader {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;

  constructor(options: { redis: RedisConnection; prefix: string }) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
  }

  async current(serverId: string): Promise<string> {
    return (await this.redis.get(this.keys.serverSession(serverId))) ?? '';
  }

  /**
   * Starts a new generation: every session opened before it is replaced on its next use. Then
   * announces it on `serverSessionRenewed`, so that processes that cache generations for a moment
   * (the worker pools) drop theirs at once; the generation itself stays the truth.
   */
  async renew(serverId: string): Promise<string> {
    const generation = String(await this.redis.incr(this.keys.serverSession(serverId)));
    await this.redis.publish(this.keys.serverSessionRenewed, serverId);
    return generation;
  }
}
