import { type Logger } from '@agentq/shared';
import { refreshLockKey, type RedisConnection } from '@agentq/store';

const renewScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`;
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** A held refresh lock. */
export interface HeldRefreshLock {
  /** Stops renewing and deletes the lock if it is still ours. Never throws. */
  release(): Promise<void>;
}

/**
 * The per-server refresh lock (`refreshLockKey` in shared): at most one refresh of a server runs
 * at a time across all warmers, whatever the queue holds. `SET NX PX`, renewed every third of its
 * TTL while the refresh runs; a warmer that dies lets it lapse after at most `ttlMs`.
 */
export class RefreshLock {
  private readonly redis: RedisConnection;
  private readonly prefix: string;
  private readonly ttlMs: number;
  private readonly logger: Logger;

  constructor(options: { redis: RedisConnection; prefix: string; ttlMs: number; logger: Logger }) {
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.ttlMs = options.ttlMs;
    this.logger = options.logger;
  }

  /** Takes the lock of `serverId` for `owner`, or returns `null` when someone else holds it. */
  async acquire(serverId: string, owner: string): Promise<HeldRefreshLock | null> {
    const key = refreshLockKey(this.prefix, serverId);
    const taken = await this.redis.set(key, owner, 'PX', this.ttlMs, 'NX');
    if (taken !== 'OK') return null;
    const timer = setInterval(
      () => {
        this.redis.eval(renewScript, 1, key, owner, this.ttlMs).catch((error: unknown) => {
          this.logger.warn({ serverId, error }, 'could not renew refresh lock');
        });
      },
      Math.max(50, Math.floor(this.ttlMs / 3)),
    );
    timer.unref();
    let released: Promise<void> | undefined;
    return {
      release: () => {
        released ??= (async () => {
          clearInterval(timer);
          try {
            await this.redis.eval(releaseScript, 1, key, owner);
          } catch (error) {
            this.logger.warn({ serverId, error }, 'could not release refresh lock; it will lapse');
          }
        })();
        return released;
      },
    };
  }
}
