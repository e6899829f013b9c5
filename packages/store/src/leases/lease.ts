import { silentLogger, type Logger } from '@agentq/shared';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { pipelineBySlot } from '../redis/pipeline-by-slot.js';
import { defineStoreScripts, runStoreScript } from '../scripts/store-scripts.js';

/** Options of {@link Lease}. */
export interface LeaseOptions {
  redis: RedisConnection;
  /** The lease key (`keyNames().refreshLock(id)`, `keyNames().watchLease(id)`). */
  key: string;
  /** Token of the holder, stored as the key's value: only this owner renews or deletes it. */
  owner: string;
  /** Time to live of the key; a holder that dies lets the lease lapse after at most this long. */
  ttlMs: number;
  /**
   * Renewal period while held, or `false` when the holder renews itself ({@link Lease.renewAll} on
   * its own tick).
   * @default a third of `ttlMs` (at least 50 ms)
   */
  renewEveryMs?: number | false;
  /**
   * Called once when a renewal finds the lease gone or held by another owner; renewal stops then.
   * @default none
   */
  onLost?: () => void;
  /** Told about failed renewals and releases (the lease lapses on its own). @default a silent logger */
  logger?: Logger;
}

/**
 * A lease on one key: `SET NX PX` to take it, renewed and deleted by scripts that only touch a key
 * its owner still holds, so a holder that lost it (paused too long) never extends or deletes
 * another's. The per-server refresh lock and the watcher leases are both leases.
 */
export class Lease {
  readonly key: string;
  private readonly options: LeaseOptions;
  private readonly logger: Logger;
  private timer: ReturnType<typeof setInterval> | undefined;
  private released: Promise<void> | undefined;

  constructor(options: LeaseOptions) {
    this.options = options;
    this.key = options.key;
    this.logger = options.logger ?? silentLogger();
  }

  /** The current holder of each key (`null` when free), in input order. Works across cluster slots. */
  static async holders(redis: RedisConnection, keys: readonly string[]): Promise<Array<string | null>> {
    const replies = await pipelineBySlot(
      redis,
      keys.map((key) => ({ key, add: (pipeline) => pipeline.get(key) })),
    );
    return replies.map(([error, value]) => {
      if (error) throw error;
      return typeof value === 'string' ? value : null;
    });
  }

  /** Renews several leases of one connection in as few round trips as it allows; returns those lost. */
  static async renewAll(redis: RedisConnection, leases: readonly Lease[]): Promise<Lease[]> {
    // A pipeline knows the scripts defined on its connection when it was made.
    defineStoreScripts(redis);
    const replies = await pipelineBySlot(
      redis,
      leases.map((lease) => ({
        key: lease.key,
        add: (pipeline) => {
          runStoreScript(redis, 'leaseRenew', [lease.key], [lease.options.owner, lease.options.ttlMs], pipeline);
        },
      })),
    );
    return leases.filter((_lease, index) => {
      const [error, value] = replies[index] ?? [null, 0];
      if (error) throw error;
      return Number(value) !== 1;
    });
  }

  /** Takes the lease when it is free; starts renewing it. Returns whether it was taken. */
  async acquire(): Promise<boolean> {
    const { redis, key, owner, ttlMs } = this.options;
    const taken = await redis.set(key, owner, 'PX', ttlMs, 'NX');
    if (taken !== 'OK') return false;
    this.released = undefined;
    this.startRenewing();
    return true;
  }

  /** Extends the lease while this owner still holds it; returns whether it does. */
  async renew(): Promise<boolean> {
    const { redis, key, owner, ttlMs } = this.options;
    return Number(await runStoreScript(redis, 'leaseRenew', [key], [owner, ttlMs])) === 1;
  }

  /** Stops renewing and deletes the lease if it is still this owner's. Memoized; never throws. */
  release(): Promise<void> {
    this.released ??= (async () => {
      this.stopRenewing();
      try {
        await runStoreScript(this.options.redis, 'leaseRelease', [this.key], [this.options.owner]);
      } catch (error) {
        this.logger.warn({ key: this.key, error }, 'could not release a lease; it will lapse');
      }
    })();
    return this.released;
  }

  private startRenewing(): void {
    const every = this.options.renewEveryMs ?? Math.max(50, Math.floor(this.options.ttlMs / 3));
    if (every === false) return;
    this.stopRenewing();
    this.timer = setInterval(() => {
      this.renew().then(
        (held) => {
          if (held || !this.timer) return;
          this.stopRenewing();
          this.options.onLost?.();
        },
        (error: unknown) => this.logger.warn({ key: this.key, error }, 'could not renew a lease'),
      );
    }, every);
    this.timer.unref();
  }

  private stopRenewing(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
