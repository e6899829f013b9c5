import type { Logger, RefreshReason, ServerChangeEvent } from '@agentq/shared';
import type { ServerStore } from '@agentq/store';
import type { CatalogWriter } from '../cache/catalog-writer.js';

/** What {@link reactToServerChange} acts through. */
export interface ServerChangeTargets {
  store: ServerStore;
  writer: CatalogWriter;
  requestRefresh: (request: { serverId: string; reason: RefreshReason }) => Promise<void>;
  removeSchedule: (serverId: string) => Promise<void>;
  watchers: { serverChanged(event: ServerChangeEvent): Promise<void> };
  logger: Logger;
}

/**
 * Turns one `servers.changed` event into catalog work. Every warmer receives every event; the
 * refresh requests they all make collapse through `requestRefresh`'s deduplication, and the other
 * steps are idempotent.
 *
 * - `enabled`, or a `put` of a new server ⇒ an `enable` refresh;
 * - a `put` that changes the definition hash ⇒ a `restart` refresh (the old entry stays, invisible
 *   to readers through its hash, until the new read succeeds);
 * - `disabled`, or a `put` that stores a disabled server ⇒ a `disable` job, which clears the entry
 *   under the server's refresh lock; the poll schedule goes at once;
 * - `remove` ⇒ entry and status deleted, schedule removed.
 *
 * The owning warmer's watcher is restarted or stopped in every case.
 */
export async function reactToServerChange(event: ServerChangeEvent, targets: ServerChangeTargets): Promise<void> {
  const { serverId } = event;
  const steps: Array<() => Promise<unknown>> = [];
  if (event.type === 'remove') {
    steps.push(
      () => targets.writer.clearRemoved(serverId),
      () => targets.removeSchedule(serverId),
    );
  } else if (event.type === 'disabled') {
    steps.push(
      () => targets.requestRefresh({ serverId, reason: 'disable' }),
      () => targets.removeSchedule(serverId),
    );
  } else if (event.type === 'enabled') {
    steps.push(() => targets.requestRefresh({ serverId, reason: 'enable' }));
  } else {
    const definition = await targets.store.get(serverId);
    if (definition && !definition.enabled) {
      steps.push(
        () => targets.requestRefresh({ serverId, reason: 'disable' }),
        () => targets.removeSchedule(serverId),
      );
    } else if (definition && event.previousHash === undefined) {
      steps.push(() => targets.requestRefresh({ serverId, reason: 'enable' }));
    } else if (definition && event.previousHash !== event.definitionHash) {
      steps.push(() => targets.requestRefresh({ serverId, reason: 'restart' }));
    }
  }
  steps.push(() => targets.watchers.serverChanged(event));
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      targets.logger.error({ serverId, type: event.type, error }, 'reacting to a server change failed');
    }
  }
}
