import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import type { TransportOpener } from './transport-opener.js';

/** A legacy HTTP+SSE server (MCP 2024-11-05): a GET event stream plus POSTed messages. */
export const openSseTransport: TransportOpener<'sse'> = (transport, context) =>
  new SSEClientTransport(new URL(transport.url), {
    // Headers go on both the POSTs and the event stream's GET, which the SDK sends through `fetch`.
    requestInit: { headers: transport.headers },
    fetch: context.fetch,
    authProvider: context.authProvider,
  });
