import { createExamplesRefresher, type ToolEnrichmentStore, type ToolRegistry } from '@agentq/registry';
import type { Logger } from '@agentq/shared';
import {
  keyNames,
  parseToolsEnrichedMessage,
  subscribeToChannels,
  type ChannelSubscription,
  type RedisConnection,
} from '@agentq/store';

/** Options of {@link followToolEnrichments}. */
export interface FollowToolEnrichmentsOptions {
  registry: ToolRegistry;
  store: ToolEnrichmentStore;
  /** A subscriber connection (shared with the session renewals). */
  subscriber: RedisConnection;
  prefix: string;
  logger: Logger;
}

/** What {@link followToolEnrichments} started. */
export interface ToolEnrichmentFollower {
  /** Unsubscribes and waits for a re-read in progress. Idempotent. */
  close(): Promise<void>;
}

/**
 * Subscribes to `P:tools.enriched` and, for each server a warmer announces, re-reads the examples
 * of the tools the process registry holds for it, in the background: examples a warmer wrote
 * after the list reach search without a catalog version change or a restart, and never on a run's
 * path. The subscription is not awaited (Redis may not be up yet); a message missed while it is
 * down leaves those examples to the server's next catalog version, as before.
 */
export function followToolEnrichments(options: FollowToolEnrichmentsOptions): ToolEnrichmentFollower {
  const logger = options.logger.child({ component: 'tool-enrichments' });
  const refresher = createExamplesRefresher({ registry: options.registry, store: options.store, logger });
  const channel = keyNames(options.prefix).toolsEnriched;
  let subscription: ChannelSubscription | undefined;
  let closed = false;
  subscribeToChannels(options.subscriber, {
    [channel]: (message) => {
      const serverId = parseToolsEnrichedMessage(message);
      if (serverId === undefined) {
        logger.warn({ channel, length: message.length }, 'ignored a malformed tools-enriched message');
        return;
      }
      refresher.request(serverId);
    },
  }).then(
    (subscribed) => {
      subscription = subscribed;
      // Closed while subscribing: the subscription is dropped as soon as it exists.
      if (closed) void subscribed.close().catch(() => undefined);
    },
    (error: Error) =>
      logger.warn({ error: error.message }, 'could not subscribe to tool enrichments; read at catalog versions only'),
  );
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        closed = true;
        // Not waiting for a subscription still under way: the caller quits the connection.
        await subscription?.close().catch(() => undefined);
        await refresher.close();
      })();
      return closing;
    },
  };
}
