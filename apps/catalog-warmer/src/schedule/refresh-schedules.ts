import { parseWith, refreshJobOptions, refreshJobSchema, type ServerDefinition } from '@agentq/shared';
import type { Queue } from 'bullmq';

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

  /** Removes the scheduler of a server, if any. */
  async remove(serverId: string): Promise<void> {
    await this.queue.removeJobScheduler(refreshScheduleId(serverId));
  }
}
