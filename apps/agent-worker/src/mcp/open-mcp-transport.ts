import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger, ServerDefinition } from '@agentq/shared';

/** Options of {@link openMcpTransport}. */
export interface OpenMcpTransportOptions {
  /** A definition whose `${ENV}` placeholders are already resolved. */
  definition: ServerDefinition;
  logger: Logger;
}

/**
 * Builds the client transport a definition describes (stdio, Streamable HTTP or legacy SSE).
 * HTTP targets must have passed `checkFetchTarget` first.
 */
export function openMcpTransport(options: OpenMcpTransportOptions): Transport {
  const { transport } = options.definition;
  if (transport.type === 'stdio') {
    const stdio = new StdioClientTransport({
      command: transport.command,
      args: transport.args,
      env: { ...getDefaultEnvironment(), ...transport.env },
      cwd: transport.cwd,
      stderr: 'pipe',
    });
    // Server chatter on stderr is diagnostics, not something a run should wait on or print.
    stdio.stderr?.on('data', (chunk: Buffer) => {
      options.logger.debug({ serverId: options.definition.id, stderr: chunk.toString('utf8').slice(0, 500) });
    });
    return stdio;
  }
  const url = new URL(transport.url);
  const requestInit = { headers: transport.headers };
  return transport.type === 'sse'
    ? new SSEClientTransport(url, { requestInit })
    : new StreamableHTTPClientTransport(url, { requestInit });
}
