import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
  AgentqError,
  checkFetchTarget,
  definitionHash,
  resolveSecrets,
  type Logger,
  type SecretRegistry,
  type ServerDefinition,
  maskSecretsDeep,
  maskServerError,
} from '@agentq/shared';
import { claimCurrentToolCall, ToolCallAlreadyClaimed } from '../run/tool-call-claims.js';
import { openMcpTransport } from './open-mcp-transport.js';

/** One MCP tool call, as the registry's MCP entries make it. */
export interface McpPoolCallRequest {
  serverId: string;
  definition: ServerDefinition;
  toolName: string;
  input: unknown;
  signal?: AbortSignal;
  toolCallId?: string;
}

/** The raw result of an MCP `tools/call`. */
export interface McpPoolCallResult {
  content: Array<Record<string, unknown>>;
  isError?: boolean;
  structuredContent?: unknown;
}

/** Options of {@link McpClientPool}. */
export interface McpClientPoolOptions {
  logger: Logger;
  /** Environment `${ENV}` placeholders resolve from. @default process.env */
  env?: Record<string, string | undefined>;
  /** Close a client this long after its last call finished. @default 60000 */
  idleMs?: number;
  /** @default false */
  allowPrivateFetch?: boolean;
  /** Builds transports; tests swap in in-memory ones. @default {@link openMcpTransport} */
  openTransport?: (definition: ServerDefinition) => Transport;
}

interface PoolEntry {
  key: string;
  serverId: string;
  ready: Promise<Client>;
  client: Client | undefined;
  references: number;
  idleTimer: NodeJS.Timeout | undefined;
  evicted: boolean;
  /** Resolved `${ENV}` values of this connection, masked out of every error it produces. */
  secretValues: string[];
}

/**
 * Per-process MCP client connections for tool calls, keyed by server id and definition hash (a
 * changed definition gets a new connection, the old one drains and closes). Clients open lazily on
 * the first call, are reference-counted, close after `idleMs` without use on an `unref()`'d timer,
 * and are evicted when their transport closes or a call fails below the protocol. A failed
 * connect is never cached: the next call tries again.
 *
 * Every failure is thrown as an error for that one call; the registry's MCP entries turn it into
 * a tool error the model sees, so a dead server never fails a run.
 */
export class McpClientPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly logger: Logger;
  private readonly env: Record<string, string | undefined>;
  private readonly idleMs: number;
  private readonly openTransport: (definition: ServerDefinition) => Transport;
  private readonly allowPrivateFetch: boolean;
  private closing: Promise<void> | undefined;

  constructor(options: McpClientPoolOptions) {
    this.logger = options.logger.child({ component: 'mcp-pool' });
    this.env = options.env ?? process.env;
    this.idleMs = options.idleMs ?? 60_000;
    this.allowPrivateFetch = options.allowPrivateFetch ?? false;
    this.openTransport =
      options.openTransport ?? ((definition) => openMcpTransport({ definition, logger: this.logger }));
  }

  /** Number of open or opening clients. */
  get size(): number {
    return this.entries.size;
  }

  /** Calls one tool, with the definition's `timeouts.callMs` and the caller's abort signal. */
  async callTool(request: McpPoolCallRequest): Promise<McpPoolCallResult> {
    if (this.closing) throw new AgentqError({ code: 'POOL_CLOSED', message: 'the MCP client pool is closed' });
    const entry = this.acquire(request.definition);
    try {
      const client = await entry.ready;
      // Last moment before the request leaves: claim the run's tool call (at most once, ever).
      await claimCurrentToolCall();
      const result = await client.callTool(
        { name: request.toolName, arguments: (request.input ?? {}) as Record<string, unknown> },
        undefined,
        { signal: request.signal, timeout: request.definition.timeouts.callMs },
      );
      if ('toolResult' in result && !('content' in result)) {
        return { content: [{ type: 'text', text: JSON.stringify(result.toolResult) }] };
      }
      const answer: McpPoolCallResult = {
        content: (result.content ?? []) as Array<Record<string, unknown>>,
        isError: result.isError === true ? true : undefined,
        structuredContent: result.structuredContent,
      };
      // An error result is the server's own error text and may echo the request; a successful one
      // is the tool's output and is passed on as it is (a resolved path can be what the model needs).
      return answer.isError ? maskSecretsDeep(answer, entry.secretValues) : answer;
    } catch (error) {
      if (error instanceof ToolCallAlreadyClaimed) throw error;
      // A JSON-RPC error answer means the connection works; anything else (closed transport,
      // timeout, spawn failure) means it may not, so the next call gets a fresh one.
      if (!(error instanceof McpError) || error.code === -32000 || error.code === -32001) this.evict(entry);
      // The message reaches the model, the checkpoint and the job result: a transport error can quote
      // a resolved URL or header, so the connection's secrets are masked and a foreign cause is dropped.
      throw new AgentqError({
        code: 'MCP_CALL_FAILED',
        message: `MCP server ${request.serverId}, tool ${request.toolName}: ${maskServerError(String((error as Error).message), entry.secretValues)}`,
        // Our own errors (address guard, missing secret) carry no resolved values; keep them as the
        // cause so callers can tell why the call failed.
        cause: AgentqError.isInstance(error) ? error : undefined,
      });
    } finally {
      this.release(entry);
    }
  }

  /** Closes every client. Idempotent. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const entries = [...this.entries.values()];
      this.entries.clear();
      await Promise.all(entries.map((entry) => this.closeEntry(entry)));
    })();
    return this.closing;
  }

  private acquire(definition: ServerDefinition): PoolEntry {
    const key = `${definition.id}#${definitionHash(definition)}`;
    const existing = this.entries.get(key);
    if (existing && !existing.evicted) {
      existing.references += 1;
      if (existing.idleTimer) clearTimeout(existing.idleTimer);
      existing.idleTimer = undefined;
      return existing;
    }
    const entry: PoolEntry = {
      key,
      serverId: definition.id,
      ready: Promise.resolve(undefined as unknown as Client),
      client: undefined,
      references: 1,
      idleTimer: undefined,
      evicted: false,
      secretValues: [],
    };
    entry.ready = this.connect(definition, entry);
    // Callers await `ready` themselves; this only keeps a failed connect from being unhandled.
    entry.ready.catch(() => undefined);
    this.entries.set(key, entry);
    return entry;
  }

  private async connect(definition: ServerDefinition, entry: PoolEntry): Promise<Client> {
    let transport: Transport | undefined;
    try {
      const resolved = resolveSecrets(definition, this.env);
      entry.secretValues = resolved.secretValues;
      (this.logger as Logger & { secrets?: SecretRegistry }).secrets?.add(resolved.secretValues);
      if (resolved.definition.transport.type !== 'stdio') {
        // Definitions can arrive over the API: never let one point a worker at internal addresses.
        await checkFetchTarget(resolved.definition.transport.url, {
          allowPrivate: this.allowPrivateFetch,
          label: `MCP server ${definition.id}`,
        });
      }
      transport = this.openTransport(resolved.definition);
      const client = new Client({ name: 'agentq-agent-worker', version: '0.1.0' });
      client.onclose = () => this.evict(entry);
      client.onerror = (error) =>
        this.logger.debug({ serverId: definition.id, error: error.message }, 'mcp transport error');
      await client.connect(transport, { timeout: definition.timeouts.connectMs });
      entry.client = client;
      if (entry.evicted) await client.close().catch(() => undefined);
      return client;
    } catch (error) {
      this.evict(entry);
      await transport?.close().catch(() => undefined);
      throw error;
    }
  }

  private release(entry: PoolEntry): void {
    entry.references -= 1;
    if (entry.references > 0) return;
    if (entry.evicted) {
      void this.closeEntry(entry);
      return;
    }
    entry.idleTimer = setTimeout(() => {
      if (entry.references > 0) return;
      this.evict(entry);
      void this.closeEntry(entry);
    }, this.idleMs);
    entry.idleTimer.unref();
  }

  private evict(entry: PoolEntry): void {
    entry.evicted = true;
    if (this.entries.get(entry.key) === entry) this.entries.delete(entry.key);
  }

  private async closeEntry(entry: PoolEntry): Promise<void> {
    if (entry.idleTimer) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    try {
      await entry.client?.close();
    } catch (error) {
      this.logger.debug({ serverId: entry.serverId, error: (error as Error).message }, 'closing an MCP client failed');
    }
  }
}
