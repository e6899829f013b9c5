import {
  AgentqError,
  definitionHash,
  maskSecretValues,
  type Logger,
  type SecretRegistry,
  type ServerDefinition,
} from '@agentq/shared';
import { type SessionGenerationReader } from '@agentq/store';
import {
  callServerTool,
  MCP_ERROR_CODES,
  McpConnectError,
  messageOf,
  prepareServerConnection,
  type McpConnection,
  type McpToolCallResult,
  type MessageByteLimit,
} from '@agentq/mcp-connect';
import { DEFAULT_TOOL_RESULT_MAX_BYTES } from '@agentq/registry';
import { type OAuthTokenStore } from '@agentq/store';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ElicitationScope } from '../elicitations/elicitation-scope.js';
import { toolCallScopeOf } from '../run/tool-call-claims.js';
import { toolCallMessageLimit } from './tool-call-message-limit.js';

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
export type McpPoolCallResult = McpToolCallResult;

/** Options of {@link McpClientPool}. */
export interface McpClientPoolOptions {
  logger: Logger;
  /** Environment `${ENV}` placeholders resolve from. @default process.env */
  env?: Record<string, string | undefined>;
  /** Close a client this long after its last call finished. @default 60000 */
  idleMs?: number;
  /**
   * Most clients kept open (`AGENTQ_MCP_POOL_SIZE`). Opening one more first closes the least
   * recently used idle client; clients in use are never closed for room, so the pool may exceed
   * this while every client is busy.
   * @default 64
   */
  maxClients?: number;
  /** Allow HTTP servers on private and loopback addresses. @default false */
  allowPrivateFetch?: boolean;
  /** Hosts allowed on private addresses (`AGENTQ_FETCH_ALLOW_HOSTS`). @default [] */
  allowHosts?: readonly string[];
  /**
   * Most bytes of an MCP server's HTTP error answer read (`AGENTQ_ERROR_BODY_MAX_BYTES`).
   * @default the connection layer's default (8192)
   */
  errorBodyMaxBytes?: number;
  /**
   * The text budget of one tool result (`AGENTQ_TOOL_RESULT_MAX_BYTES`), from which the cap on one
   * message a server sends is derived (see `toolCallMessageLimit`): past it a call fails with
   * `MCP_RESULT_TOO_LARGE` while the answer is read, and the connection is dropped.
   * @default 1048576
   */
  toolResultMaxBytes?: number;
  /**
   * OAuth for servers with an `auth` block (the encrypted token store of `AGENTQ_SECRET_KEY`).
   * Unset: such servers are refused with `OAUTH_KEY_MISSING`.
   */
  oauth?: { store: OAuthTokenStore };
  /**
   * The `fetch` HTTP transports send with.
   * @default the connection layer's guarded fetch (pinned to the checked address)
   */
  fetch?: typeof fetch;
  /** Builds transports; tests swap in in-memory ones. @default the transports of `@agentq/mcp-connect` */
  openTransport?: (definition: ServerDefinition) => Transport;
  /**
   * Told every value a connection resolves, so that the process masks it out of tool results.
   * @default none (the root logger's redactor is told in any case)
   */
  secrets?: SecretRegistry;
  /**
   * Session generations of the servers (`restartServer` bumps one). Asked before every call: a
   * client opened under an older generation is dropped (its calls in flight finish) and the call
   * opens a new session. The worker passes a `CachedSessionGenerations`, which answers from memory
   * between restart announcements instead of a Redis read per call; `ServerSessions` reads every
   * time. @default none (clients live until idle or broken)
   */
  sessions?: SessionGenerationReader;
}

interface PoolEntry {
  key: string;
  serverId: string;
  ready: Promise<McpConnection>;
  connection: McpConnection | undefined;
  references: number;
  idleTimer: NodeJS.Timeout | undefined;
  evicted: boolean;
  /** Resolved `${ENV}` values of this connection, masked out of every error it produces. */
  secretValues: string[];
  /** The server's session generation when this client was opened (`undefined`: not known). */
  sessionGeneration: string | undefined;
  /** Policy `ask` only: the end of the last call queued on this client (one call at a time). */
  turn: Promise<void>;
  /** Policy `ask` only: the elicitation scope of the call in flight, which its questions go to. */
  asking: ElicitationScope | undefined;
}

/**
 * Per-process MCP client connections for tool calls, opened through `@agentq/mcp-connect` (the
 * transports, the Streamable HTTP to SSE fallback, the address guard, timeouts and error codes
 * are the warmer's too). Keyed by server id and definition hash: a changed definition gets a new
 * connection, the old one drains and closes. Clients open lazily on the first call, are
 * reference-counted, close after `idleMs` without use on an `unref()`'d timer, and are evicted
 * when their transport closes or a call fails below the protocol. A failed connect is never
 * cached: the next call tries again.
 *
 * Every failure is thrown as an error for that one call, with the connection layer's code
 * (`MCP_CONNECT_FAILED`, `MCP_CONNECT_TIMEOUT`, `MCP_CALL_FAILED`, `MCP_CALL_TIMEOUT`,
 * `MCP_TRANSPORT_CLOSED`, `MCP_RESULT_TOO_LARGE`, or the guard's `PRIVATE_ADDRESS`); the registry's MCP entries turn it
 * into a tool error the model sees, so a dead server never fails a run.
 *
 * A restart of a server (`restartServer`) reaches every worker through the server's session
 * generation in Redis, compared before each call: a worker that was busy, disconnected or not yet
 * started when it happened still opens a new session on its next call. The announcement of the
 * restart only lets a cached generation be dropped at once (see `CachedSessionGenerations`).
 *
 * The pool stays in the worker rather than in `@agentq/mcp-connect`: only runs share connections.
 * A warmer reads each refresh over a fresh session or its watcher's own, and the pool's claim of a
 * run's tool call right before the request leaves is worker business.
 */
export class McpClientPool {
  private readonly entries = new Map<string, PoolEntry>();
  private readonly logger: Logger;
  private readonly env: Record<string, string | undefined>;
  private readonly idleMs: number;
  private readonly maxClients: number;
  private readonly openTransport: ((definition: ServerDefinition) => Transport) | undefined;
  private readonly allowPrivateFetch: boolean;
  private readonly allowHosts: readonly string[];
  private readonly errorBodyMaxBytes: number | undefined;
  private readonly messageLimit: MessageByteLimit;
  private readonly oauth: { store: OAuthTokenStore } | undefined;
  private readonly fetch: typeof fetch | undefined;
  private readonly secrets: SecretRegistry[];
  private readonly sessions: SessionGenerationReader | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: McpClientPoolOptions) {
    // The redactor hangs off the root logger only; a child does not carry it.
    const redactor = (options.logger as Logger & { secrets?: SecretRegistry }).secrets;
    this.secrets = [redactor, options.secrets].filter((each): each is SecretRegistry => each !== undefined);
    this.logger = options.logger.child({ component: 'mcp-pool' });
    this.env = options.env ?? process.env;
    this.idleMs = options.idleMs ?? 60_000;
    this.maxClients = Math.max(1, options.maxClients ?? 64);
    this.allowPrivateFetch = options.allowPrivateFetch ?? false;
    this.allowHosts = options.allowHosts ?? [];
    this.errorBodyMaxBytes = options.errorBodyMaxBytes;
    this.messageLimit = toolCallMessageLimit(options.toolResultMaxBytes ?? DEFAULT_TOOL_RESULT_MAX_BYTES);
    this.oauth = options.oauth;
    this.fetch = options.fetch;
    this.openTransport = options.openTransport;
    this.sessions = options.sessions;
  }

  /** Number of open or opening clients. */
  get size(): number {
    return this.entries.size;
  }

  /** Calls one tool, with the definition's `timeouts.callMs` and the caller's abort signal. */
  async callTool(request: McpPoolCallRequest): Promise<McpPoolCallResult> {
    if (this.closing) throw new AgentqError({ code: 'POOL_CLOSED', message: 'the MCP client pool is closed' });
    const sessionGeneration = await this.sessionGeneration(request.serverId);
    if (this.closing) throw new AgentqError({ code: 'POOL_CLOSED', message: 'the MCP client pool is closed' });
    const entry = this.acquire(request.definition, sessionGeneration);
    // The run's tool call this request makes, found by the signal it was handed (see withToolCallScope).
    const call = toolCallScopeOf(request.signal);
    let endTurn: (() => void) | undefined;
    try {
      const connection = await entry.ready;
      if (request.definition.elicitation === 'ask') {
        // An elicitation names no tool call: with one call at a time on the client, a question
        // belongs to the call in flight, whose run parks on it.
        endTurn = await this.takeTurn(entry);
        entry.asking = call?.elicitation;
      }
      // Last moment before the request leaves: claim the run's tool call (at most once, ever).
      await call?.claim();
      return await callServerTool({
        client: connection.client,
        serverId: request.serverId,
        toolName: request.toolName,
        input: request.input,
        timeoutMs: request.definition.timeouts.callMs,
        signal: request.signal,
        secretValues: entry.secretValues,
      });
    } catch (error) {
      // A JSON-RPC error answer means the connection works; a timeout, a closed transport or a
      // failed connect means it may not, so the next call gets a fresh one.
      if (McpConnectError.isInstance(error) && error.connectionBroken) this.evict(entry);
      throw error;
    } finally {
      if (endTurn) {
        entry.asking = undefined;
        endTurn();
      }
      this.release(entry);
    }
  }

  /** Waits for the client's calls queued before this one; resolves with the function ending this turn. */
  private async takeTurn(entry: PoolEntry): Promise<() => void> {
    const previous = entry.turn;
    let end: () => void = () => undefined;
    entry.turn = new Promise<void>((resolve) => (end = resolve));
    await previous;
    return end;
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

  /**
   * The server's session generation, or `undefined` when there is none to compare (no `sessions`,
   * or Redis did not answer: a restart is then seen on the next call rather than failing this one).
   */
  private async sessionGeneration(serverId: string): Promise<string | undefined> {
    if (!this.sessions) return undefined;
    try {
      return await this.sessions.current(serverId);
    } catch (error) {
      this.logger.warn({ serverId, error }, 'could not read the session generation; reusing the open client');
      return undefined;
    }
  }

  private acquire(definition: ServerDefinition, sessionGeneration: string | undefined): PoolEntry {
    const key = `${definition.id}#${definitionHash(definition)}`;
    const existing = this.entries.get(key);
    if (
      existing &&
      !existing.evicted &&
      sessionGeneration !== undefined &&
      existing.sessionGeneration !== sessionGeneration
    ) {
      // The server was restarted since this client opened: calls in flight finish on it, then it
      // closes; this call and the next open a new session.
      this.logger.info({ serverId: definition.id }, 'server restarted; opening a new MCP session');
      this.evict(existing);
      if (existing.references === 0) void this.closeEntry(existing);
    } else if (existing && !existing.evicted) {
      existing.references += 1;
      if (existing.idleTimer) clearTimeout(existing.idleTimer);
      existing.idleTimer = undefined;
      // Most recently used last: the map's order is the eviction order.
      this.entries.delete(key);
      this.entries.set(key, existing);
      return existing;
    }
    this.makeRoom();
    const entry: PoolEntry = {
      key,
      serverId: definition.id,
      ready: Promise.resolve(undefined as unknown as McpConnection),
      connection: undefined,
      references: 1,
      idleTimer: undefined,
      evicted: false,
      secretValues: [],
      sessionGeneration,
      turn: Promise.resolve(),
      asking: undefined,
    };
    entry.ready = this.connect(definition, entry);
    // Callers await `ready` themselves; this only keeps a failed connect from being unhandled.
    entry.ready.catch(() => undefined);
    this.entries.set(key, entry);
    return entry;
  }

  /** Closes least recently used idle clients until one more fits under `maxClients`. */
  private makeRoom(): void {
    for (const entry of this.entries.values()) {
      if (this.entries.size < this.maxClients) return;
      if (entry.references > 0) continue;
      this.logger.debug(
        { serverId: entry.serverId, maxClients: this.maxClients },
        'closing an idle MCP client for room',
      );
      this.evict(entry);
      void this.closeEntry(entry);
    }
  }

  private async connect(definition: ServerDefinition, entry: PoolEntry): Promise<McpConnection> {
    try {
      const server = prepareServerConnection({
        definition,
        env: this.env,
        onSecretValues: (secretValues) => {
          entry.secretValues = secretValues;
          for (const registry of this.secrets) registry.add(secretValues);
        },
      });
      const connection = await server.connect({
        logger: this.logger,
        oauth: this.oauth,
        allowPrivateNetwork: this.allowPrivateFetch,
        allowHosts: this.allowHosts,
        errorBodyMaxBytes: this.errorBodyMaxBytes,
        messageLimit: this.messageLimit,
        fetch: this.fetch,
        clientName: 'agentq-agent-worker',
        openTransport: this.openTransport,
        onUnexpectedClose: () => this.evict(entry),
        // Policy `ask`: the question goes to the run of the call in flight; with none, declined.
        askElicitation: async (asked) =>
          entry.asking ? await entry.asking.ask(definition.id, asked) : { action: 'decline' },
      });
      entry.connection = connection;
      if (entry.evicted) await connection.close();
      return connection;
    } catch (error) {
      // Never cache a failed connect: the next call tries again.
      this.evict(entry);
      if (AgentqError.isInstance(error)) throw error;
      throw new McpConnectError({
        code: MCP_ERROR_CODES.connectFailed,
        message: maskSecretValues(`MCP server ${definition.id}: ${messageOf(error)}`, entry.secretValues),
        connectionBroken: true,
      });
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
    // A connection's close never throws.
    await entry.connection?.close();
  }
}
