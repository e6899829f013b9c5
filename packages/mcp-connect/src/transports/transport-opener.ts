import type { Logger, ServerTransport } from '@agentq/shared';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { MessageByteLimit } from '../connect/cap-message-bytes.js';
import type { StderrCapture } from './stderr-capture.js';

/** What every transport file gets besides its own part of the definition. */
export interface TransportContext {
  logger: Logger;
  /** Where a child process's stderr goes. */
  stderr: StderrCapture;
  /**
   * The `fetch` HTTP transports send with; the place a DNS-pinning guarded fetch plugs in.
   * @default globalThis.fetch
   */
  fetch?: typeof fetch;
  /** OAuth for a server with an `auth` block: the SDK sends its tokens and runs its flows. */
  authProvider?: OAuthClientProvider;
  /**
   * Cap on one message a stdio server writes (one line of its stdout), counted while it is read.
   * HTTP transports are capped in their `fetch` instead. @default the SDK's own buffer cap
   */
  messageLimit?: MessageByteLimit;
}

/** The transport definition of one `type`, secrets resolved. */
export type TransportDefinitionOf<K extends ServerTransport['type']> = Extract<ServerTransport, { type: K }>;

/** Builds an unstarted SDK transport for one kind of transport definition. */
export type TransportOpener<K extends ServerTransport['type']> = (
  transport: TransportDefinitionOf<K>,
  context: TransportContext,
) => Transport;
