import { AgentqError, checkFetchTarget, NonRetryableError, type Logger, type ServerDefinition } from '@agentq/shared';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ServerCapabilities } from '@modelcontextprotocol/sdk/types.js';

/** An initialized MCP client connection. */
export interface McpConnection {
  client: Client;
  capabilities: ServerCapabilities | undefined;
  /** The transport actually used: `sse` when a Streamable HTTP server fell back. */
  transport: 'stdio' | 'streamable-http' | 'sse';
  /** Closes the client; for stdio this ends (and if needed kills) the child process. Never throws. */
  close(): Promise<void>;
}

/** Options of {@link connectMcpServer}. */
export interface ConnectMcpServerOptions {
  /** A definition whose secrets are already resolved. */
  definition: ServerDefinition;
  logger: Logger;
  /** Allow HTTP servers on private and loopback addresses. @default false */
  allowPrivateNetwork?: boolean;
  /** Aborts the connection attempt (BullMQ job signal, warmer shutdown). */
  signal?: AbortSignal;
  /** Called once when an established connection closes without `close()` being called. */
  onUnexpectedClose?: () => void;
}

const clientInfo = { name: 'agentq-catalog-warmer', version: '0.1.0' };

/**
 * Opens and initializes an MCP client for a server over stdio, Streamable HTTP or legacy SSE,
 * within the definition's `timeouts.connectMs` for the whole attempt. A Streamable HTTP server that
 * answers the first POST with a 4xx other than 401/403 is retried as legacy SSE on the same URL,
 * the fallback the MCP specification describes for old servers. A failed attempt always closes
 * what it opened (no stray child processes); it fails with code `MCP_CONNECT_TIMEOUT` or
 * `MCP_CONNECT_FAILED`.
 */
export async function connectMcpServer(options: ConnectMcpServerOptions): Promise<McpConnection> {
  const { definition } = options;
  const deadline = Date.now() + definition.timeouts.connectMs;
  const remaining = () => Math.max(1, deadline - Date.now());
  const logger = options.logger.child({ serverId: definition.id });
  const transportDefinition = definition.transport;

  if (transportDefinition.type !== 'stdio') {
    await checkFetchTarget(transportDefinition.url, {
      allowPrivate: options.allowPrivateNetwork ?? false,
      label: `MCP server ${definition.id}`,
    });
  }

  if (transportDefinition.type === 'stdio') {
    const transport = new StdioClientTransport({
      command: transportDefinition.command,
      args: transportDefinition.args,
      env: transportDefinition.env,
      cwd: transportDefinition.cwd,
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      logger.debug({ stderr: chunk.toString('utf8').trimEnd().slice(0, 2_000) }, 'mcp server stderr');
    });
    return await initialize({ transport, kind: 'stdio', options, timeoutMs: remaining() });
  }

  const url = new URL(transportDefinition.url);
  const requestInit: RequestInit = { headers: transportDefinition.headers };
  if (transportDefinition.type === 'sse') {
    return await initialize({
      transport: new SSEClientTransport(url, { requestInit }),
      kind: 'sse',
      options,
      timeoutMs: remaining(),
    });
  }
  try {
    return await initialize({
      transport: new StreamableHTTPClientTransport(url, { requestInit }),
      kind: 'streamable-http',
      options,
      timeoutMs: remaining(),
    });
  } catch (error) {
    const status = error instanceof AgentqError ? statusOf(error.cause) : undefined;
    if (status === undefined || status < 400 || status >= 500 || status === 401 || status === 403) throw error;
    logger.info({ status }, 'server refused Streamable HTTP; falling back to legacy SSE');
    return await initialize({
      transport: new SSEClientTransport(url, { requestInit }),
      kind: 'sse',
      options,
      timeoutMs: remaining(),
    });
  }
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError && typeof error.code === 'number') return error.code;
  return undefined;
}

async function initialize(input: {
  transport: Transport;
  kind: McpConnection['transport'];
  options: ConnectMcpServerOptions;
  timeoutMs: number;
}): Promise<McpConnection> {
  const { definition, signal } = input.options;
  const client = new Client(clientInfo, { capabilities: {} });
  let closedOnPurpose = false;
  let closing: Promise<void> | undefined;
  const close = () => {
    closedOnPurpose = true;
    closing ??= client.close().catch(() => {});
    return closing;
  };
  // The SDK reports transport errors here; they surface through the failing request instead.
  client.onerror = () => {};
  try {
    signal?.throwIfAborted();
    await client.connect(input.transport, { timeout: input.timeoutMs, signal });
  } catch (error) {
    await close();
    if (NonRetryableError.isInstance(error)) throw error;
    const timedOut = isTimeout(error);
    throw new AgentqError({
      code: timedOut ? 'MCP_CONNECT_TIMEOUT' : 'MCP_CONNECT_FAILED',
      message: timedOut
        ? `MCP server ${definition.id} did not finish connecting within ${definition.timeouts.connectMs} ms`
        : `MCP server ${definition.id}: connect failed (${messageOf(error)})`,
      cause: error,
    });
  }
  client.onclose = () => {
    if (!closedOnPurpose) input.options.onUnexpectedClose?.();
  };
  return { client, capabilities: client.getServerCapabilities(), transport: input.kind, close };
}

/** Whether an MCP SDK error is a request timeout. */
export function isTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === -32001 || (error instanceof Error && /timed? ?out/i.test(error.message));
}

/** The message of an unknown thrown value. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
