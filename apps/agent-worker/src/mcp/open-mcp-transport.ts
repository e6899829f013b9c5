import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { NonRetryableError, type Logger, type ServerDefinition } from '@agentq/shared';

/** Options of {@link openMcpTransport}. */
export interface OpenMcpTransportOptions {
  /** A definition whose `${ENV}` placeholders are already resolved. */
  definition: ServerDefinition;
  /** Whether HTTP servers may live on loopback or private addresses. */
  allowPrivateFetch: boolean;
  logger: Logger;
}

const privateHost =
  /^(localhost|.*\.localhost|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|0\.0\.0\.0|\[::1?\]|\[f[cd][0-9a-f:]*\]|\[fe80:[0-9a-f:]*\])$/i;

/** Builds the client transport a definition describes (stdio, Streamable HTTP or legacy SSE). */
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
  if (!options.allowPrivateFetch && privateHost.test(url.hostname)) {
    throw new NonRetryableError({
      code: 'PRIVATE_ADDRESS',
      field: 'transport.url',
      message: `MCP server ${options.definition.id} is on a private address (${url.hostname}); set AGENTQ_ALLOW_PRIVATE_FETCH=true to allow it`,
    });
  }
  const requestInit = { headers: transport.headers };
  return transport.type === 'sse'
    ? new SSEClientTransport(url, { requestInit })
    : new StreamableHTTPClientTransport(url, { requestInit });
}
