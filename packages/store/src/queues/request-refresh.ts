import { parseWith, type RefreshJob, refreshJobOptions, refreshJobSchema, type RefreshReason } from '@agentq/shared';

/**
 * The part of a BullMQ `Queue` that {@link requestRefresh} needs. Structural, so that `shared`
 * does not depend on bullmq; pass the `catalog-refresh` queue.
 */
export interface RefreshQueue {
  add(name: string, data: unknown, options?: object): Promise<unknown>;
}

/** What to refresh and why. */
export interface RefreshRequest {
  serverId: string;
  reason: RefreshReason;
  /** Epoch ms of the request. @default Date.now() */
  requestedAt?: number;
}

// Reasons that answer a person or a server saying "the list changed now": they bypass the
// failure/empty backoff. The others are the warmers' and workers' own background probes.
const forcedReasons: ReadonlySet<RefreshReason> = new Set([
  'list-changed',
  'restart',
  'enable',
  'disable',
  'on-demand',
]);

/**
 * Whether a refresh for `reason` ignores the server's backoff (`nextAttemptAt`). `prewarm`,
 * `scheduled` and `first-seen` respect it, so that a dead server is not hammered by every warmer
 * start or every run; explicit requests and notifications do not.
 */
export function isForcedRefreshReason(reason: RefreshReason): boolean {
  return forcedReasons.has(reason);
}

/**
 * BullMQ deduplication id of a refresh request: one per server and per class of reason
 * (`list-changed`, the other forced reasons, background). See {@link requestRefresh}.
 */
export function refreshDeduplicationId(serverId: string, reason: RefreshReason): string {
  const group = reason === 'list-changed' ? 'list-changed' : isForcedRefreshReason(reason) ? 'forced' : 'background';
  return `refresh.${serverId}.${group}`;
}

/**
 * Whether a refresh job may stand for requests deduplicated into it that came after its own
 * `requestedAt`, so that only a read starting after the job itself started answers it. True for
 * the forced reasons an operator or a definition change sends; `list-changed` jobs (the queued
 * fallback of a watcher owner's own read: every notification also asks the owner directly) and
 * background probes are answered by any read since their own request.
 */
export function refreshAnswersLaterRequests(reason: RefreshReason): boolean {
  return reason !== 'list-changed' && isForcedRefreshReason(reason);
}

/**
 * Enqueues a `catalog-refresh` job for one server, deduplicated so that a burst of requests costs
 * at most one running refresh plus one more afterwards (none more for background reasons).
 *
 * Design, in two layers:
 *
 * 1. **Queue-level deduplication** (BullMQ 6 `deduplication: { id }`). While a job with the same
 *    deduplication id is *waiting or delayed*, a new request is dropped: that job has not started,
 *    so it will read the server as it is when it runs and nothing is lost. What happens while that
 *    job is *active* depends on the class of the reason:
 *    - forced reasons (a notification, an operator) add `keepLastIfActive: true`: BullMQ stores the
 *      newest request and enqueues it when the active one completes or fails, so a change that
 *      lands mid-refresh yields exactly one more refresh afterwards (at most one active plus one
 *      pending job per id);
 *    - background reasons (`first-seen`, `prewarm`, `scheduled`) are dropped: the running refresh
 *      already answers "make sure this server is warm", so a burst of first-seen requests from
 *      every agent worker leaves exactly one refresh in flight.
 *
 * 2. **The warmer's per-server lock** (`keyNames().refreshLock`, a `Lease`). The deduplication id includes the
 *    class of the reason (forced or background, see {@link isForcedRefreshReason}): otherwise an
 *    explicit `restart` dropped into a waiting `prewarm` would be skipped by that prewarm's backoff
 *    check and lost. `list-changed` has a class of its own for the same reason: its job is skipped
 *    once a read over the watcher's session began after it, so an operator's `on-demand` dropped
 *    into it would be lost too (and a broken server would never be recorded as such). A waiting
 *    job of the operator class may stand for several requests, the last made just before it
 *    started: it is answered only by a read that begins after it started
 *    ({@link refreshAnswersLaterRequests}). Two classes can mean two runnable jobs for one server (and job-scheduler jobs
 *    are not deduplicated at all), so the processor takes a Redis lock (`SET NX PX`, renewed while
 *    it runs) before touching the server. A job that cannot get it is moved back to delayed
 *    (`RetryLaterError` → `DelayedError`), never failed or dropped, and runs once the holder is
 *    done. So across every warmer process at most one refresh of a server runs at a time, and a
 *    burst of one class collapses into at most two refreshes.
 *
 * The payload is validated with `refreshJobSchema` before it is added (a `ValidationError` names
 * the bad field). Returns what `queue.add` returns (the BullMQ job).
 */
export async function requestRefresh(queue: RefreshQueue, request: RefreshRequest): Promise<unknown> {
  const data: RefreshJob = parseWith(
    refreshJobSchema,
    { serverId: request.serverId, reason: request.reason, requestedAt: request.requestedAt ?? Date.now() },
    'catalog refresh request',
  );
  return await queue.add(data.reason, data, {
    ...refreshJobOptions,
    deduplication: {
      id: refreshDeduplicationId(data.serverId, data.reason),
      ...(isForcedRefreshReason(data.reason) ? { keepLastIfActive: true } : {}),
    },
  });
}
