import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TransportOpener } from './transport-opener.js';

/** A Streamable HTTP server (MCP 2025-03-26 and later). */
export const openStreamableHttpTransport: TransportOpener<'streamable-http'> = (transport, context) =>
  new StreamableHTTPClientTransport(new URL(transport.url), {
    requestInit: { headers: transport.headers },
    fetch: context.fetch,
    authProvider: context.authProvider,
  });
