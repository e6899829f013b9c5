import { parseWith, refreshJobOptions, refreshJobSchema, type ServerDefinition } from '@agentq/shared';
import type { Queue } from 'bullmq';

/** Name of the delayed `scheduled` refresh jobs that a `ttlMs` cache hint asks for. */
export const CACHE_TTL_JOB_NAME = 'cache-ttl';

/** Job id of the hint-driven refresh of one server due at `dueAt`: one job per due time. */
export function cacheTtlJobId(serverId: string, dueAt: number): string {
  return `${CACHE_TTL_JOB_NAME}.${serverId}.${dueAt}`;
}

/** Id of the BullMQ job scheduler that polls one server. */
export function refreshScheduleId(serverId: string): string {
  return `scheduled.${serverId}`;
}

/**
 * Polling for servers that cannot tell us their list changed: a BullMQ job scheduler per server
 * that adds a `scheduled` refresh every `refreshIntervalMs`. Schedulers live in Redis, so they
 * survive the warmer that created them; the server's watcher owner keeps them in line with the
 * definition, and every warmer removes them when a server is disabled or removed.
 */
export class RefreshSchedules {
  private readonly queue: Queue;

  constructor(options: { queue: Queue }) {
    this.queue = options.queue;
  }

  /** Creates or updates the scheduler of a server with `refreshIntervalMs`. */
  async ensure(definition: Pick<ServerDefinition, 'id' | 'refreshIntervalMs'>): Promise<void> {
    if (definition.refreshIntervalMs === undefined) {
      await this.remove(definition.id);
      return;
    }
    const data = parseWith(
      refreshJobSchema,
      { serverId: definition.id, reason: 'scheduled', requestedAt: 0 },
      'scheduled refresh',
    );
    await this.queue.upsertJobScheduler(
      refreshScheduleId(definition.id),
      { every: definition.refreshIntervalMs },
      { name: 'scheduled', data, opts: { ...refreshJobOptions } },
    );
  }

  /**
   * Adds the background refresh a `ttlMs` cache hint asks for: a delayed `scheduled` job due at
   * `dueAt` (the status's `nextRefreshAt`). Each successful read that carries a hint adds its own;
   * an earlier one whose due time no longer matches the status is skipped as obsolete when it
   * fires, so there is no remove-then-add race with a job that is running.
   */
  async scheduleAfterTtl(request: { serverId: string; dueAt: number }): Promise<void> {
    const data = parseWith(
      refreshJobSchema,
      { serverId: request.serverId, reason: 'scheduled', requestedAt: request.dueAt },
      'cache ttl refresh',
    );
    await this.queue.add(CACHE_TTL_JOB_NAME, data, {
      ...refreshJobOptions,
      delay: Math.max(0, request.dueAt - Date.now()),
      jobId: cacheTtlJobId(request.serverId, request.dueAt),
    });
  }

  /** Removes the scheduler of a server, if any. */
  async remove(serverId: string): Promise<void> {
    await this.queue.removeJobScheduler(refreshScheduleId(serverId));
  }
}
