import { refreshReasonSchema, safeParseJson, serverIdSchema, type Logger, type RefreshReason } from '@agentq/shared';
import { keyNames, type KeyNames } from '../keys.js';
import { Lease } from '../leases/lease.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { z } from 'zod';

/** A refresh handed to the warmer that owns the server's watcher. */
export const refreshDelegationSchema = z.strictObject({
  serverId: serverIdSchema,
  reason: refreshReasonSchema,
  requestedAt: z.number().int().nonnegative(),
  /** Warmer that handed it over (for logs). */
  from: z.string().min(1),
});

/** One delegated refresh request. */
export type DelegatedRefresh = z.output<typeof refreshDelegationSchema>;

/**
 * Routes refreshes of a watched server to its watcher owner, the one warmer whose MCP session
 * receives that server's `tools/list_changed`. Another warmer's fresh session may see another list
 * (servers whose tools depend on the session), so it must not read one while the owner is alive.
 *
 * The owner is the holder of the server's watcher lease. A request goes to it over its own
 * pub/sub channel (`keyNames.refreshDelegated(owner)`): `PUBLISH` answers how many subscribers got
 * it, so "delivered to a live owner" is known at once, and a lease held by a warmer that stopped
 * listening (shutting down, or gone with the lease not yet lapsed) is treated as no owner.
 */
export class RefreshDelegation {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;
  private readonly warmerId: string;

  constructor(options: { redis: RedisConnection; prefix: string; warmerId: string }) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
    this.warmerId = options.warmerId;
  }

  /** This warmer's channel, to subscribe to. */
  get channel(): string {
    return this.keys.refreshDelegated(this.warmerId);
  }

  /**
   * Hands a refresh of `serverId` to its watcher owner when that is another warmer that listens.
   * Returns the owner's id when delivered; `undefined` when this warmer must read itself (no lease
   * holder, the holder is this warmer, or nobody listens on the holder's channel).
   */
  async toOwner(request: {
    serverId: string;
    reason: RefreshReason;
    requestedAt: number;
  }): Promise<string | undefined> {
    const [owner] = await Lease.holders(this.redis, [this.keys.watchLease(request.serverId)]);
    if (owner === null || owner === undefined || owner === this.warmerId) return undefined;
    const message: DelegatedRefresh = refreshDelegationSchema.parse({ ...request, from: this.warmerId });
    const receivers = await this.redis.publish(this.keys.refreshDelegated(owner), JSON.stringify(message));
    return receivers > 0 ? owner : undefined;
  }
}

/** Parses a message from this warmer's delegation channel; logs and drops a malformed one. */
export function parseRefreshDelegation(text: string, logger: Logger): DelegatedRefresh | undefined {
  const parsed = safeParseJson(text, refreshDelegationSchema, 'delegated refresh');
  if (parsed.success) return parsed.data;
  logger.warn({ error: parsed.error.message }, 'ignoring malformed delegated refresh');
  return undefined;
}
