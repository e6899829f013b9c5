import type { Logger } from '@agentq/shared';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import type { SessionGenerationReader } from './server-sessions.js';

/** Options of {@link CachedSessionGenerations}. */
export interface CachedSessionGenerationsOptions {
  /** Where generations are read (`ServerSessions`). */
  reader: SessionGenerationReader;
  /**
   * A connection of its own for the subscription (`ServerSessions.renew` publishes on `channel`).
   * The caller owns it and quits it after `close()`.
   */
  subscriber: RedisConnection;
  /** `keyNames(prefix).serverSessionRenewed`. */
  channel: string;
  logger: Logger;
  /**
   * Longest a read generation is answered from memory. Only a bound for a notification that never
   * arrives while the subscription looks healthy; a restart is normally seen as soon as it is
   * published. @default 2000
   */
  maxAgeMs?: number;
}

/**
 * Session generations as the worker's MCP client pool compares them before every tool call,
 * without a Redis round trip per call.
 *
 * A generation read from Redis is kept for at most `maxAgeMs`, and only while this process is
 * subscribed to the renewal channel: `ServerSessions.renew` publishes the server id right after it
 * bumps the generation, and the message drops that server's cached value, so the next call reads
 * the new generation and opens a new session. Redis delivers a publish to subscribers before it
 * answers the publisher, so a restart that has returned is already on its way here. When the
 * subscription is not up (not yet subscribed, reconnecting, closed) nothing is cached and every
 * call reads Redis, as without this cache; a read in flight while a message arrives or the
 * subscription drops is not cached either, so a stale value never outlives a notification.
 */
export class CachedSessionGenerations implements SessionGenerationReader {
  private readonly reader: SessionGenerationReader;
  private readonly subscriber: RedisConnection;
  private readonly channel: string;
  private readonly logger: Logger;
  private readonly maxAgeMs: number;
  private readonly cache = new Map<string, { generation: string; readAt: number }>();
  /** Bumped by every notification and every change of the subscription's health. */
  private invalidations = 0;
  private subscribed = false;
  private closed = false;

  constructor(options: CachedSessionGenerationsOptions) {
    this.reader = options.reader;
    this.subscriber = options.subscriber;
    this.channel = options.channel;
    this.logger = options.logger.child({ component: 'session-generations' });
    this.maxAgeMs = options.maxAgeMs ?? 2_000;
    this.subscriber.on('message', (channel: string, serverId: string) => {
      if (channel !== this.channel) return;
      this.invalidations += 1;
      this.cache.delete(serverId);
    });
    // A dropped subscription may have missed messages: forget everything until it is back.
    for (const event of ['close', 'reconnecting', 'end']) this.subscriber.on(event, () => this.unsubscribed());
    this.subscriber.on('ready', () => void this.subscribe());
  }

  /** Subscribes; until it has, every read goes to Redis. Never throws (a failure is logged). */
  async start(): Promise<void> {
    await this.subscribe();
  }

  async current(serverId: string): Promise<string> {
    const cached = this.subscribed ? this.cache.get(serverId) : undefined;
    if (cached && Date.now() - cached.readAt < this.maxAgeMs) return cached.generation;
    const before = this.invalidations;
    const readAt = Date.now();
    const generation = await this.reader.current(serverId);
    if (this.subscribed && before === this.invalidations) this.cache.set(serverId, { generation, readAt });
    return generation;
  }

  /** Stops caching and unsubscribes. Idempotent; the caller quits the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribed();
    await this.subscriber.unsubscribe(this.channel).catch(() => undefined);
  }

  private unsubscribed(): void {
    this.subscribed = false;
    this.invalidations += 1;
    this.cache.clear();
  }

  private async subscribe(): Promise<void> {
    if (this.closed) return;
    try {
      await this.subscriber.subscribe(this.channel);
      if (!this.closed) this.subscribed = true;
    } catch (error) {
      this.logger.warn({ error }, 'could not subscribe to session renewals; reading every generation');
    }
  }
}
