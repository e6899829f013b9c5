import type { Logger } from '@agentq/shared';
import type { ToolEnrichmentStore } from '@agentq/store';
import { refreshServerExamples } from '../mcp/sync-mcp-tools-to-registry.js';
import type { ToolRegistry } from '../registry/tool-registry.js';

/** A process's reaction to `P:tools.enriched`: re-reads a server's examples in the background. */
export interface ExamplesRefresher {
  /**
   * Schedules a re-read of `serverId`'s examples and returns at once. A burst coalesces: while one
   * re-read of a server runs, further requests for it leave one more pending, not one each.
   */
  request(serverId: string): void;
  /** Resolves when no re-read is running or pending (for tests). */
  idle(): Promise<void>;
  /** Drops pending re-reads and waits for running ones. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createExamplesRefresher}. */
export interface CreateExamplesRefresherOptions {
  registry: ToolRegistry;
  store: ToolEnrichmentStore;
  logger: Logger;
}

/**
 * Re-reads the stored examples of one server's tools off any run's path (see
 * `refreshServerExamples`); a failure is logged, never thrown, and search keeps what it had.
 */
export function createExamplesRefresher(options: CreateExamplesRefresherOptions): ExamplesRefresher {
  const running = new Map<string, Promise<void>>();
  const pending = new Set<string>();
  let closed = false;

  const refresh = async (serverId: string) => {
    try {
      const { tools, withExamples, skipped } = await refreshServerExamples(options.registry, options.store, serverId);
      if (skipped === undefined) {
        options.logger.debug({ serverId, tools, withExamples }, 'read the new examples of a server');
      } else {
        options.logger.debug({ serverId, tools, reason: skipped }, 'left the new examples of a server unread');
      }
    } catch (error) {
      options.logger.warn(
        { serverId, error: error instanceof Error ? error.message : String(error) },
        'could not read the new examples of a server; they are read at its next catalog version',
      );
    }
  };
  const start = (serverId: string) => {
    const task = refresh(serverId).finally(() => {
      running.delete(serverId);
      if (pending.delete(serverId) && !closed) start(serverId);
    });
    running.set(serverId, task);
  };
  return {
    request(serverId) {
      if (closed) return;
      if (running.has(serverId)) pending.add(serverId);
      else start(serverId);
    },
    async idle() {
      while (running.size > 0) await Promise.all(running.values());
    },
    async close() {
      closed = true;
      pending.clear();
      await Promise.all(running.values());
    },
  };
}
