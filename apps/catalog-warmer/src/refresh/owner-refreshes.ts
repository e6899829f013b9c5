import { RetryLaterError, type Logger, type RefreshReason } from '@agentq/shared';
import { isForcedRefreshReason } from '@agentq/store';

/** A refresh the watcher owner runs itself, outside the queue. */
export interface OwnerRefreshRequest {
  serverId: string;
  reason: RefreshReason;
  /** Epoch ms of the request; a read that starts at or after it answers it. */
  requestedAt: number;
}

interface Slot {
  active: { startedAt: number; promise: Promise<unknown> } | undefined;
  pending: { request: OwnerRefreshRequest; promise: Promise<unknown> } | undefined;
}

/**
 * The watcher owner's own refreshes: `tools/list_changed` on its session, the catch-up after it
 * subscribes, and requests other warmers hand it. They bypass the queue, so that the list is read
 * over the session the notification came on, by the warmer holding it.
 *
 * Per server, requests collapse like the queue's deduplication does: a request made before the
 * running refresh started is answered by it; otherwise one more refresh follows, shared by every
 * request that arrives meanwhile. A burst is at most two reads, and none is lost. The refresh
 * itself (`run`) takes the cross-warmer refresh lock; while another warmer holds it, the request
 * waits and tries again rather than fall back to the queue.
 */
export class OwnerRefreshes<T> {
  private readonly run: (request: OwnerRefreshRequest) => Promise<T>;
  private readonly logger: Logger;
  private readonly slots = new Map<string, Slot>();
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;

  constructor(options: { run: (request: OwnerRefreshRequest) => Promise<T>; logger: Logger }) {
    this.run = options.run;
    this.logger = options.logger.child({ component: 'owner-refresh' });
  }

  /**
   * Asks for a refresh over this warmer's session. Resolves with what the answering refresh did,
   * or `undefined` after {@link close}; rejects with its error.
   */
  request(request: OwnerRefreshRequest): Promise<T | undefined> {
    if (this.closed) return Promise.resolve(undefined);
    let slot = this.slots.get(request.serverId);
    if (!slot) {
      slot = { active: undefined, pending: undefined };
      this.slots.set(request.serverId, slot);
    }
    if (slot.active && slot.active.startedAt >= request.requestedAt) return slot.active.promise as Promise<T>;
    if (slot.pending) {
      const merged = slot.pending.request;
      slot.pending.request = {
        ...merged,
        // A forced reason must not wait behind a background one that the backoff would skip.
        reason:
          isForcedRefreshReason(request.reason) && !isForcedRefreshReason(merged.reason)
            ? request.reason
            : merged.reason,
        // The pending refresh answers the latest request it stands for: a read that began between
        // an earlier one and this one (a queued job over the same session) must not count as the
        // answer and skip it as covered.
        requestedAt: Math.max(merged.requestedAt, request.requestedAt),
      };
      return slot.pending.promise as Promise<T>;
    }
    if (!slot.active) return this.begin(slot, request);
    const current = slot;
    const previous = current.active?.promise.catch(() => undefined);
    const pending: { request: OwnerRefreshRequest; promise: Promise<unknown> } = {
      request,
      promise: Promise.resolve(previous).then(() => {
        current.pending = undefined;
        return this.closed ? undefined : this.begin(current, pending.request);
      }),
    };
    current.pending = pending;
    return pending.promise as Promise<T | undefined>;
  }

  /** Stops taking requests and waits for the running refreshes. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  private begin(slot: Slot, request: OwnerRefreshRequest): Promise<T | undefined> {
    const startedAt = Date.now();
    const promise: Promise<T | undefined> = this.runUntilLocked(request).finally(() => {
      this.running.delete(promise);
      if (slot.active?.promise === promise) slot.active = undefined;
      if (!slot.active && !slot.pending) this.slots.delete(request.serverId);
    });
    slot.active = { startedAt, promise };
    this.running.add(promise);
    return promise;
  }

  private async runUntilLocked(request: OwnerRefreshRequest): Promise<T | undefined> {
    for (;;) {
      try {
        return await this.run(request);
      } catch (error) {
        // Another warmer's refresh of this server (a fallback job) holds the lock: it ends within
        // its connect and list timeouts, or its lock lapses when that warmer died.
        if (!RetryLaterError.isInstance(error) || this.closed) throw error;
        this.logger.debug({ serverId: request.serverId, retryInMs: error.retryAfterMs }, 'refresh lock busy; waiting');
        await new Promise((resolve) => setTimeout(resolve, error.retryAfterMs));
        if (this.closed) return undefined;
      }
    }
  }
}
