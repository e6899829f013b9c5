import {
  AgentqError,
  isAuthCatalogState,
  NonRetryableError,
  QUEUE_NAMES,
  RetryLaterError,
  ROOT_CONTEXT,
  ValidationError,
  withBullmqErrors,
  withSpan,
  definitionHash,
  refreshJobSchema,
  type Logger,
  type RefreshReason,
  type ServerDefinition,
  maskSecretsDeep,
  maskServerError,
} from '@agentq/shared';
import {
  isForcedRefreshReason,
  keyNames,
  Lease,
  refreshAnswersLaterRequests,
  type CatalogStore,
  type RedisConnection,
  type ServerStore,
} from '@agentq/store';
import { messageOf, prepareServerConnection, type McpConnection } from '@agentq/mcp-connect';
import { type OAuthTokenStore } from '@agentq/store';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Job } from 'bullmq';
import type { CatalogWriter } from '../cache/catalog-writer.js';
import {
  checkListBytes,
  DEFAULT_CATALOG_BUDGET,
  listMessageLimit,
  type CatalogBudget,
} from '../cache/catalog-budget.js';
import { toCatalogTools } from '../cache/to-catalog-tools.js';
import { CACHE_TTL_JOB_NAME } from '../schedule/refresh-schedules.js';
import { clampCacheTtlMs, type CacheHints } from './cache-hints.js';
import { listToolsWithHints } from './list-tools-with-hints.js';
import { OwnerRefreshes, type OwnerRefreshRequest } from './owner-refreshes.js';

/** What one refresh job did; the job's return value. */
export interface RefreshOutcome {
  serverId: string;
  reason: RefreshReason;
  /**
   * `delegated`: handed to the warmer that owns the server's watcher, to be read over its session
   * (see `owner`).
   */
  outcome: 'connected' | 'disabled' | 'skipped' | 'superseded' | 'delegated';
  /**
   * Why a refresh was skipped: `backoff` and `fresh` for background reasons; `covered` when a read
   * over the watcher owner's session started after the request (the owner already answered it).
   */
  skipped?: 'backoff' | 'fresh' | 'covered';
  /** The watcher owner a `delegated` refresh went to. */
  owner?: string;
  /** Over which session the list was read. */
  session?: 'watcher' | 'fresh';
  toolCount?: number;
  version?: string;
  /** Whether `catalog.updated` was published. */
  published?: boolean;
}

/** Options of {@link createRefreshProcessor}. */
export interface RefreshProcessorOptions {
  redis: RedisConnection;
  prefix: string;
  writer: CatalogWriter;
  /** Where the server definitions are read. */
  servers: ServerStore;
  /** Where entries and statuses are read for the backoff, and `tools.listChanged` support is recorded. */
  catalog: CatalogStore;
  /**
   * Time to live of the per-server refresh lock (`keyNames().refreshLock`), renewed every third of
   * it while the refresh runs: at most one refresh of a server runs at a time across all warmers.
   */
  lockTtlMs: number;
  logger: Logger;
  warmerId: string;
  /** Environment for `${ENV}` secrets. */
  env: Record<string, string | undefined>;
  /** Hands resolved secret values to the log redactor. */
  registerSecrets: (values: readonly string[]) => void;
  allowPrivateNetwork: boolean;
  /** Hosts allowed on private addresses (`AGENTQ_FETCH_ALLOW_HOSTS`). @default [] */
  allowHosts?: readonly string[];
  /** Most bytes of an MCP server's HTTP error answer read (`AGENTQ_ERROR_BODY_MAX_BYTES`). @default 8192 */
  errorBodyMaxBytes?: number;
  /**
   * OAuth for servers with an `auth` block (the encrypted token store of `AGENTQ_SECRET_KEY`).
   * Unset: such servers are refused with `OAUTH_KEY_MISSING`.
   */
  oauth?: { store: OAuthTokenStore };
  /** The live watcher connection of this warmer for a server and definition, if it has one. */
  watchedConnection?: (serverId: string, definitionHash: string) => Client | undefined;
  /**
   * Brings this warmer's watcher session of a server up to its session generation (a restart
   * asked for a new session) before the refresh borrows it. @default none
   */
  renewSession?: (serverId: string, definitionHash: string) => Promise<void>;
  /**
   * Hands a refresh to the server's watcher owner when that is another live warmer; returns the
   * owner's id when it did. Without it every warmer reads over a fresh session.
   */
  delegateToOwner?: (request: {
    serverId: string;
    reason: RefreshReason;
    requestedAt: number;
  }) => Promise<string | undefined>;
  /** Schedules the background refresh a `ttlMs` hint asks for (`dueAt` epoch ms). */
  scheduleRefresh?: (request: { serverId: string; dueAt: number }) => Promise<void>;
  /**
   * What one server's list may cost (`AGENTQ_MAX_TOOLS_PER_SERVER` and the other `AGENTQ_MAX_*`).
   * @default {@link DEFAULT_CATALOG_BUDGET}
   */
  budget?: CatalogBudget;
  /** Base wait before a job whose server is locked tries again. @default 250 */
  lockRetryMs?: number;
  /**
   * Whether this warmer is shutting down. A refresh that fails then was most likely cut off by the
   * shutdown itself (a terminal's Ctrl-C stops stdio servers too): it is dropped quietly, and the
   * server's status is left as it was rather than marked failed.
   */
  stopping?: () => boolean;
}

/** A refresh processor plus a way to wait for the connections it is still closing. */
export interface RefreshProcessor {
  process(job: Job, token?: string, signal?: AbortSignal): Promise<RefreshOutcome>;
  /**
   * Refreshes a server outside the queue, as its watcher owner: `tools/list_changed` on this
   * warmer's session and requests other warmers handed over. Collapses bursts per server and waits
   * for the refresh lock instead of failing. Resolves `undefined` once closing.
   */
  refreshAsOwner(request: OwnerRefreshRequest): Promise<RefreshOutcome | undefined>;
  /** Stops taking owner refreshes and waits for the running ones. */
  closeOwnerRefreshes(): Promise<void>;
  /** Number of refreshes running now. */
  active(): number;
  /** Waits until every connection opened by a refresh is closed (stdio children ended). */
  drain(): Promise<void>;
}

/**
 * Builds the `catalog-refresh` processor. Per job: validate the payload (bad ⇒ fails once, no
 * retry), take the server's refresh lock (busy ⇒ delayed, not failed), read the definition as
 * stored (unknown ⇒ fails once and clears leftovers; corrupt ⇒ reported, fails once; disabled ⇒
 * entry cleared), apply the backoff to background reasons, skip what a read over the watcher's
 * session already answered, then read and write the cache in one atomic step. A failed read
 * records `stale`/`error` and backoff in the status and fails the job once; BullMQ never retries a
 * refresh, the backoff decides.
 *
 * Where the list is read (session-true `tools/list_changed`): a server's tools may depend on the
 * MCP session, and its notifications belong to the watcher owner's session. So the owner reads
 * over that session; any other warmer hands the refresh to a live owner (`delegated`) and only
 * opens a fresh session when there is none (no watcher, or its warmer died: the fallback). The
 * owner's own refreshes (`refreshAsOwner`) run the same steps under the same lock and write
 * through the same compare-and-set.
 */
export function createRefreshProcessor(options: RefreshProcessorOptions): RefreshProcessor {
  const keys = keyNames(options.prefix);
  const budget = options.budget ?? DEFAULT_CATALOG_BUDGET;
  const closing = new Set<Promise<void>>();
  let running = 0;

  const closeLater = (connection: McpConnection) => {
    // Closing a stdio server can take seconds; the cache is already written, so do not hold the
    // job (or the lock) for it, but let `drain` wait for it at shutdown.
    const done: Promise<void> = connection.close().finally(() => closing.delete(done));
    closing.add(done);
  };

  async function refresh(job: Job, signal: AbortSignal | undefined): Promise<RefreshOutcome> {
    const parsed = refreshJobSchema.safeParse(job.data);
    if (!parsed.success) throw ValidationError.fromZod('catalog refresh job', parsed.error, 'INVALID_REFRESH_JOB');
    return await refreshServer({
      serverId: parsed.data.serverId,
      reason: parsed.data.reason,
      requestedAt: requestedAtOf(job, parsed.data),
      lockOwner: `${options.warmerId}:${job.id ?? ''}`,
      logger: options.logger.child({
        component: 'refresh',
        queue: QUEUE_NAMES.catalogRefresh,
        jobId: job.id,
        serverId: parsed.data.serverId,
        reason: parsed.data.reason,
      }),
      cacheTtlJob: job.name === CACHE_TTL_JOB_NAME,
      asOwner: false,
      signal,
    });
  }

  // One span per refresh, in a trace of its own: refreshes serve every run, not one.
  async function refreshServer(request: ServerRefreshRequest): Promise<RefreshOutcome> {
    return await withSpan(
      'agentq.catalog.refresh',
      {
        parent: ROOT_CONTEXT,
        attributes: {
          'agentq.server.id': request.serverId,
          'agentq.refresh.reason': request.reason,
          'agentq.refresh.as_owner': request.asOwner,
          'agentq.warmer.id': options.warmerId,
        },
        expectedError: (error) =>
          RetryLaterError.isInstance(error) && error.code === 'REFRESH_BUSY' ? 'busy' : undefined,
      },
      async (span) => {
        const outcome = await refreshServerUntraced(request);
        span.setAttributes({
          'agentq.outcome': outcome.outcome,
          ...(outcome.toolCount !== undefined ? { 'agentq.catalog.tool_count': outcome.toolCount } : {}),
          ...(outcome.skipped ? { 'agentq.refresh.skipped': outcome.skipped } : {}),
          ...(outcome.session ? { 'agentq.refresh.session': outcome.session } : {}),
          ...(outcome.published !== undefined ? { 'agentq.catalog.published': outcome.published } : {}),
        });
        return outcome;
      },
    );
  }

  async function refreshServerUntraced(request: ServerRefreshRequest): Promise<RefreshOutcome> {
    const lock = await takeLock(request);
    running += 1;
    try {
      const stored = await readDefinition(request);
      const { serverId, reason } = request;
      if (!stored.definition.enabled) {
        const result = await options.writer.recordDisabled(stored.base);
        request.logger.info('server disabled: catalog entry cleared');
        return { serverId, reason, outcome: result.written ? 'disabled' : 'superseded' };
      }
      return (await answeredElsewhere(request, stored.hash)) ?? (await readAndWrite(request, stored));
    } finally {
      running -= 1;
      await lock.release();
    }
  }

  /** The server's refresh lock, or `REFRESH_BUSY` (the job is delayed, not failed) while another holds it. */
  async function takeLock(request: ServerRefreshRequest): Promise<Lease> {
    const lock = new Lease({
      redis: options.redis,
      key: keys.refreshLock(request.serverId),
      owner: request.lockOwner,
      ttlMs: options.lockTtlMs,
      logger: request.logger,
    });
    if (await lock.acquire()) return lock;
    const base = options.lockRetryMs ?? 250;
    throw new RetryLaterError({
      code: 'REFRESH_BUSY',
      message: `a refresh of ${request.serverId} is already running`,
      retryAfterMs: base + Math.floor(Math.random() * base),
    });
  }

  /**
   * The definition as stored. Unknown: its leftovers are cleared and the job fails once
   * (`SERVER_NOT_FOUND`); malformed: reported, and the job fails once (`DEFINITION_INVALID`).
   */
  async function readDefinition(request: ServerRefreshRequest): Promise<StoredDefinition> {
    const { serverId } = request;
    const stored = await options.servers.getStored(serverId);
    if (stored === null) {
      await options.writer.clearRemoved(serverId);
      await options.catalog.forgetCapability(serverId);
      throw new NonRetryableError({
        code: 'SERVER_NOT_FOUND',
        field: 'serverId',
        message: `MCP server ${serverId} does not exist`,
      });
    }
    if (stored.error) {
      const message = stored.error.message;
      request.logger.error({ error: message }, 'skipping malformed server definition');
      throw new NonRetryableError({
        code: 'DEFINITION_INVALID',
        field: 'serverId',
        message: `stored definition of MCP server ${serverId} is malformed: ${message}`,
      });
    }
    return {
      definition: stored.definition,
      hash: definitionHash(stored.definition),
      base: { serverId, definitionText: stored.text },
    };
  }

  /** A refresh that needs no read here: skipped (backoff, fresh, covered) or handed to the watcher owner. */
  async function answeredElsewhere(request: ServerRefreshRequest, hash: string): Promise<RefreshOutcome | undefined> {
    const { serverId, reason, requestedAt, logger } = request;
    const skip = await skipReason({
      serverId,
      hash,
      requestedAt,
      background: !isForcedRefreshReason(reason),
      cacheTtlJob: request.cacheTtlJob,
    });
    if (skip) {
      logger.debug({ skipped: skip }, 'refresh skipped');
      return { serverId, reason, outcome: 'skipped', skipped: skip };
    }
    const borrowed = options.watchedConnection?.(serverId, hash);
    if (borrowed || request.asOwner || !options.delegateToOwner) return undefined;
    const owner = await options.delegateToOwner({ serverId, reason, requestedAt });
    if (owner === undefined) return undefined;
    logger.debug({ owner }, 'refresh handed to the watcher owner, to read over its session');
    return { serverId, reason, outcome: 'delegated', owner };
  }

  /** Reads the list and writes it; a failed read is recorded (last known good kept) and fails the job once. */
  async function readAndWrite(request: ServerRefreshRequest, stored: StoredDefinition): Promise<RefreshOutcome> {
    const attempt: ReadAttempt = { request, stored, startedAt: Date.now(), secretValues: [], connection: undefined };
    try {
      return await writeList(attempt, await listServerTools(attempt));
    } catch (error) {
      return await recordFailedRead(attempt, error);
    } finally {
      if (attempt.connection) closeLater(attempt.connection);
    }
  }

  /**
   * Reads the tool list: over the watcher's session when this warmer owns it (renewed first when a
   * restart asked for a new session), else over a fresh one. Records `tools.listChanged` support.
   */
  async function listServerTools(read: ReadAttempt): Promise<ListedTools> {
    const { request, stored } = read;
    const { serverId, logger } = request;
    const prepared = prepareServerConnection({
      definition: stored.definition,
      env: options.env,
      onSecretValues: (values) => options.registerSecrets(values),
    });
    read.secretValues = prepared.secretValues;
    const openFresh = async () => {
      read.connection = await prepared.connect({
        logger,
        oauth: options.oauth,
        clientName: 'agentq-catalog-warmer',
        allowPrivateNetwork: options.allowPrivateNetwork,
        allowHosts: options.allowHosts,
        errorBodyMaxBytes: options.errorBodyMaxBytes,
        messageLimit: listMessageLimit(budget),
        signal: request.signal,
      });
      return read.connection.client;
    };
    // A restart asked for a new session: the watcher reconnects first, and the list is read
    // over its new session. Not a failure of the server when it cannot: it reads fresh below.
    await options.renewSession?.(serverId, stored.hash).catch((error: unknown) => {
      logger.warn({ error }, 'could not renew the watcher session');
    });
    const borrowed = options.watchedConnection?.(serverId, stored.hash);
    const readFrom = (client: Client) => readList(client, read);
    let listed: ListedTools;
    if (!borrowed) listed = await readFrom(await openFresh());
    else {
      try {
        listed = { ...(await readFrom(borrowed)), session: 'watcher' };
      } catch (error) {
        // The watcher's long-lived connection may be what broke, not the server: one more try
        // on a fresh connection, unless the server simply did not answer in time. Only the owner
        // gets here, and a broken session has no list of its own left to keep; the watcher's
        // reconnect reads over its new session again.
        if (AgentqError.isInstance(error) && error.code === 'MCP_LIST_TIMEOUT') throw error;
        logger.info({ error: messageOf(error) }, 'list over the watcher connection failed; trying a fresh one');
        listed = await readFrom(await openFresh());
      }
    }
    await options.catalog
      .writeCapability(serverId, { definitionHash: stored.hash, listChanged: listed.listChanged, seenAt: Date.now() })
      .catch((error: unknown) => logger.warn({ error }, 'could not record server capabilities'));
    return listed;
  }

  // No `tools` capability: the server has no tools to offer, and asking would be an error.
  async function readList(client: Client, read: ReadAttempt): Promise<ListedTools> {
    const tools = client.getServerCapabilities()?.tools;
    const listChanged = tools?.listChanged === true;
    if (!tools) return { tools: [], hints: {}, listChanged, session: 'fresh' };
    const listed = await listToolsWithHints({
      client,
      serverId: read.request.serverId,
      timeoutMs: read.stored.definition.timeouts.listMs,
      signal: read.request.signal,
      secretValues: read.secretValues,
      maxItems: budget.maxTools,
    });
    return { ...listed, listChanged, session: 'fresh' };
  }

  /** Masks, checks and writes a list read; schedules the refresh its `ttlMs` hint asks for. */
  async function writeList(read: ReadAttempt, listed: ListedTools): Promise<RefreshOutcome> {
    const { request, stored, startedAt } = read;
    const { serverId, reason, logger } = request;
    const { session, hints } = listed;
    // A server that quotes its own URL or header in a description must not put it in the cache,
    // where every run's model reads it. The masking walk reaches past the schema depth budget
    // (list, tool, schema: three levels above it), so a too deep schema still reads as too deep.
    const masked = maskSecretsDeep(listed.tools, read.secretValues, budget.maxSchemaDepth + 8);
    const { tools, skipped } = toCatalogTools(masked, budget);
    for (const tool of skipped) logger.warn({ tool: tool.name, problem: tool.reason }, 'skipping tool');
    // Refused before anything is written or embedded: the last good list stays.
    checkListBytes(tools, budget);
    const result = await options.writer.recordSuccess({
      ...stored.base,
      tools,
      skipped,
      startedAt,
      readBy: { warmerId: options.warmerId, session },
      ttlMs: hints.ttlMs,
      cacheScope: hints.cacheScope,
      refreshAfterMs: clampCacheTtlMs(hints.ttlMs),
    });
    if (!result.written) {
      logger.info('definition changed during the refresh; result dropped');
      return { serverId, reason, outcome: 'superseded' };
    }
    if (result.nextRefreshAt !== undefined && options.scheduleRefresh) {
      // A lost schedule only means the hint is not honoured this once: the list is written.
      await options.scheduleRefresh({ serverId, dueAt: result.nextRefreshAt }).catch((error: unknown) => {
        logger.warn({ error }, 'could not schedule the refresh the ttlMs hint asks for');
      });
    }
    const { version, published } = result;
    const toolCount = tools.length;
    logger.info({ toolCount, version, published, session, ...hints }, 'catalog refreshed');
    return { serverId, reason, outcome: 'connected', session, toolCount, version, published };
  }

  /**
   * Anything but an unknown server, ours or an unexpected error from a transport, is a failed
   * refresh of this server: recorded (last known good kept) with secrets masked, then thrown as
   * non-retryable. Only when the record itself cannot be written (Redis trouble) does the original
   * error propagate.
   */
  async function recordFailedRead(read: ReadAttempt, error: unknown): Promise<never> {
    if (AgentqError.isInstance(error) && error.code === 'SERVER_NOT_FOUND') throw error;
    const { logger } = read.request;
    const code = AgentqError.isInstance(error) ? error.code : 'MCP_REFRESH_FAILED';
    const message = maskServerError(messageOf(error), read.secretValues);
    if (options.stopping?.()) {
      logger.debug({ code, error: message }, 'refresh cut off by shutdown; status left as it was');
      throw new NonRetryableError({ code: 'WARMER_STOPPING', message: `refresh cut off by shutdown: ${message}` });
    }
    const result = await options.writer.recordFailure({ ...read.stored.base, error: message, code }).catch(() => {
      throw error;
    });
    logger.warn(
      { code, error: message, state: result.written ? result.state : 'superseded' },
      'refresh failed; last known good list kept',
    );
    throw new NonRetryableError({ code, message });
  }

  async function skipReason(input: {
    serverId: string;
    hash: string;
    requestedAt: number;
    background: boolean;
    cacheTtlJob: boolean;
  }): Promise<RefreshOutcome['skipped']> {
    const { entry, status, corrupt } = await options.catalog.read(input.serverId);
    const current = entry?.success && entry.data.definitionHash === input.hash ? entry.data : undefined;
    // The read over the watcher's session began after the request: that session's list is already
    // what the request asks for. This is what lets the queued `list-changed` job, enqueued beside
    // the owner's own refresh as the fallback, collapse into it.
    if (current?.readBy?.session === 'watcher' && current.refreshedAt >= input.requestedAt) return 'covered';
    if (!input.background) return undefined;
    if (status?.success && status.data.definitionHash === input.hash) {
      // The backoff is the server's; a cache that cannot be read is repaired at once (a failed
      // read deletes it, so the backoff holds again after one attempt).
      const backoff = status.data.nextAttemptAt !== undefined && status.data.nextAttemptAt > Date.now();
      if (backoff && !corrupt) return 'backoff';
      // The server refused for want of authorization: only an operator's refresh, restart, enable
      // or edit (a new definition hash) tries it again, never a background probe.
      if (isAuthCatalogState(status.data.state)) return 'backoff';
      // A later read rescheduled (or dropped) the ttl refresh: this one is obsolete.
      if (input.cacheTtlJob && status.data.nextRefreshAt !== input.requestedAt) return 'fresh';
    }
    // Read after the request was made: a background probe would learn nothing new.
    if (current && current.refreshedAt >= input.requestedAt) return 'fresh';
    return undefined;
  }

  const ownerRefreshes = new OwnerRefreshes<RefreshOutcome>({
    logger: options.logger,
    run: (request) =>
      refreshServer({
        ...request,
        lockOwner: `${options.warmerId}:owner`,
        logger: options.logger.child({ component: 'refresh', serverId: request.serverId, reason: request.reason }),
        cacheTtlJob: false,
        asOwner: true,
        signal: undefined,
      }),
  });

  return {
    process(job, token, signal) {
      return withBullmqErrors({ job, token }, () => refresh(job, signal));
    },
    refreshAsOwner: (request) => ownerRefreshes.request(request),
    closeOwnerRefreshes: () => ownerRefreshes.close(),
    active: () => running,
    async drain() {
      while (closing.size > 0) await Promise.allSettled([...closing]);
    },
  };
}

// Job-scheduler jobs carry the template's fixed `requestedAt`; their creation time is the request.
// An operator's job may stand for later requests deduplicated into it while it waited: only a read
// that starts now answers all of them.
function requestedAtOf(job: Job, data: { reason: RefreshReason; requestedAt: number }): number {
  if (refreshAnswersLaterRequests(data.reason)) return Math.max(data.requestedAt, Date.now());
  return data.reason === 'scheduled' ? Math.max(data.requestedAt, job.timestamp) : data.requestedAt;
}

/** One refresh of one server, from the queue or as the watcher owner. */
interface ServerRefreshRequest {
  serverId: string;
  reason: RefreshReason;
  requestedAt: number;
  lockOwner: string;
  logger: Logger;
  /** A refresh scheduled by a `ttlMs` hint: obsolete once a later read rescheduled it. */
  cacheTtlJob: boolean;
  /** Asked of this warmer as the watcher owner: never handed on again. */
  asOwner: boolean;
  signal: AbortSignal | undefined;
}

/** The definition a refresh works from: parsed, hashed, and its exact stored text for the write. */
interface StoredDefinition {
  definition: ServerDefinition;
  hash: string;
  base: { serverId: string; definitionText: string };
}

/** One read of a list: what it works from, the secret values to mask and a fresh connection to close after. */
interface ReadAttempt {
  request: ServerRefreshRequest;
  stored: StoredDefinition;
  /** When the read began: the entry's `refreshedAt`. */
  startedAt: number;
  secretValues: string[];
  connection: McpConnection | undefined;
}

/** A list as read, with its cache hints, the server's `listChanged` support and the session used. */
interface ListedTools {
  tools: unknown[];
  hints: CacheHints;
  listChanged: boolean;
  session: 'watcher' | 'fresh';
}
