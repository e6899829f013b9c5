import { keyNames, type KeyNames, type RedisConnection } from '@agentq/store';

// Renews every lease in KEYS still owned by ARGV[1]; answers 1/0 per key.
const renewScript = `
local out = {}
for index, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
    out[index] = 1
  else
    out[index] = 0
  end
end
return out
`;
const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/**
 * Watcher leases (`keyNames(prefix).watchLease(serverId)`): a key holding the owning warmer's id
 * with a TTL. Claiming is `SET NX PX`; renewing and releasing only touch a lease its owner still
 * holds, so a warmer that lost a lease (paused too long) can never extend or delete another's.
 */
export class WatchLeases {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;
  private readonly owner: string;
  private readonly ttlMs: number;

  constructor(options: { redis: RedisConnection; prefix: string; owner: string; ttlMs: number }) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
    this.owner = options.owner;
    this.ttlMs = options.ttlMs;
  }

  /** Current holder of each server's lease (`null` when free), in input order. */
  async holders(serverIds: readonly string[]): Promise<Array<string | null>> {
    if (serverIds.length === 0) return [];
    return await this.redis.mget(...serverIds.map((id) => this.keys.watchLease(id)));
  }

  /** Tries to take a free lease. */
  async claim(serverId: string): Promise<boolean> {
    return (await this.redis.set(this.keys.watchLease(serverId), this.owner, 'PX', this.ttlMs, 'NX')) === 'OK';
  }

  /** Extends the leases still held; returns the ids that were lost. */
  async renew(serverIds: readonly string[]): Promise<string[]> {
    if (serverIds.length === 0) return [];
    const results = (await this.redis.eval(
      renewScript,
      serverIds.length,
      ...serverIds.map((id) => this.keys.watchLease(id)),
      this.owner,
      this.ttlMs,
    )) as number[];
    return serverIds.filter((_, index) => Number(results[index]) !== 1);
  }

  /** Gives a lease up, if it is still ours. */
  async release(serverId: string): Promise<void> {
    await this.redis.eval(releaseScript, 1, this.keys.watchLease(serverId), this.owner);
  }
}
