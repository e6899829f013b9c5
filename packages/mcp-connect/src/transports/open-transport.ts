import type { ServerTransport } from '@agentq/shared';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { openSseTransport } from './sse-transport.js';
import { openStdioTransport } from './stdio-transport.js';
import { openStreamableHttpTransport } from './streamable-http-transport.js';
import type { TransportContext, TransportOpener } from './transport-opener.js';

// One entry per transport type. The mapped type makes a new type in the definition schema a
// compile error here until its file exists.
const openers: { [K in ServerTransport['type']]: TransportOpener<K> } = {
  stdio: openStdioTransport,
  'streamable-http': openStreamableHttpTransport,
  sse: openSseTransport,
};

/**
 * Builds the unstarted SDK transport a (resolved) transport definition describes. HTTP targets
 * must have passed the fetch-target guard first; {@link connectMcpServer} does that.
 */
export function openTransport(transport: ServerTransport, context: TransportContext): Transport {
  const opener = openers[transport.type] as TransportOpener<ServerTransport['type']>;
  return opener(transport, context);
}
