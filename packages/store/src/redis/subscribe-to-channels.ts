import type { RedisConnection } from './create-redis-connection.js';

/** A live subscription of {@link subscribeToChannels}. */
export interface ChannelSubscription {
  /** Unsubscribes from every channel and stops calling the handlers. Idempotent. */
  close(): Promise<void>;
}

/**
 * Subscribes a connection of its own (a subscriber cannot send other commands) to pub/sub channels
 * named by `keyNames`, calling each channel's handler with the message text. The handlers are in
 * place before the subscription, so no message that arrives once it is answered is missed.
 */
export async function subscribeToChannels(
  subscriber: RedisConnection,
  handlers: Readonly<Record<string, (message: string) => void>>,
): Promise<ChannelSubscription> {
  const channels = Object.keys(handlers);
  const listener = (channel: string, message: string) => {
    if (Object.hasOwn(handlers, channel)) handlers[channel]?.(message);
  };
  subscriber.on('message', listener);
  await subscriber.subscribe(...channels);
  let closed: Promise<void> | undefined;
  return {
    close() {
      closed ??= (async () => {
        subscriber.off('message', listener);
        await subscriber.unsubscribe(...channels);
      })();
      return closed;
    },
  };
}
