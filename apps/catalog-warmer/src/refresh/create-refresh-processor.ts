import {
  AgentqError,
  NonRetryableError,
  QUEUE_NAMES,
  RetryLaterError,
  ValidationError,
  catalogEntrySchema,
  catalogStatusSchema,
  definitionHash,
  isForcedRefreshReason,
  keyNames,
  refreshJobSchema,
  resolveSecrets,
  safeParseJson,
  serverDefinitionSchema,
  type Logger,
  type RedisConnection,
  type RefreshReason,
  maskServerError,
} from '@agentq/shared';
import { connectMcpServer, listServerTools, messageOf, type McpConnection } from '@agentq/mcp-connect';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Job } from 'bullmq';
import type { CatalogWriter } from '../cache/catalog-writer.js';
import type { ServerCapabilities } from '../cache/server-capabilities.js';
import { toCatalogTools } from '../cache/to-catalog-tools.js';
import { withBullmqErrors } from '../errors/bullmq-error-adapter.js';
import type { RefreshLock } from './refresh-lock.js';

/** What one refresh job did; the job's return value. */
export interface RefreshOutcome {
  serverId: string;
  reason: RefreshReason;
  outcome: 'connected' | 'disabled' | 'skipped' | 'superseded';
  /** Why a background refresh was skipped. */
  skipped?: 'backoff' | 'fresh';
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
  lock: RefreshLock;
  logger: Logger;
  warmerId: string;
  /** Environment for `${ENV}` secrets. */
  env: Record<string, string | undefined>;
  /** Hands resolved secret values to the log redactor. */
  registerSecrets: (values: readonly string[]) => void;
  allowPrivateNetwork: boolean;
  /** The live watcher connection of this warmer for a server and definition, if it has one. */
  watchedConnection?: (serverId: string, definitionHash: string) => Client | undefined;
  /** Where `tools.listChanged` support is recorded for watcher owners. */
  capabilities?: ServerCapabilities;
  /** Base wait before a job whose server is locked tries again. @default 250 */
  lockRetryMs?: number;
}

/** A refresh processor plus a way to wait for the connections it is still closing. */
export interface RefreshProcessor {
  process(job: Job, token?: string, signal?: AbortSignal): Promise<RefreshOutcome>;
  /** Number of refreshes running now. */
  active(): number;
  /** Waits until every connection opened by a refresh is closed (stdio children ended). */
  drain(): Promise<void>;
}

/**
 * Builds the `catalog-refresh` processor. Per job: validate the payload (bad ⇒ fails once, no
 * retry), take the server's refresh lock (busy ⇒ delayed, not failed), read the definition as
 * stored (unknown ⇒ fails once and clears leftovers; corrupt ⇒ reported, fails once; disabled ⇒
 * entry cleared), apply the backoff to background reasons, then connect, list every page and
 * write the cache in one atomic step. A failed read records `stale`/`error` and backoff in the
 * status and fails the job once; BullMQ never retries a refresh, the backoff decides.
 */
export function createRefreshProcessor(options: RefreshProcessorOptions): RefreshProcessor {
  const keys = keyNames(options.prefix);
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
    const { serverId, reason } = parsed.data;
    const logger = options.logger.child({
      component: 'refresh',
      queue: QUEUE_NAMES.catalogRefresh,
      jobId: job.id,
      serverId,
      reason,
    });

    const lock = await options.lock.acquire(serverId, `${options.warmerId}:${job.id ?? ''}`);
    if (!lock) {
      const base = options.lockRetryMs ?? 250;
      throw new RetryLaterError({
        code: 'REFRESH_BUSY',
        message: `a refresh of ${serverId} is already running`,
        retryAfterMs: base + Math.floor(Math.random() * base),
      });
    }
    running += 1;
    try {
      const definitionText = await options.redis.hget(keys.servers, serverId);
      if (definitionText === null) {
        await options.writer.clearRemoved(serverId);
        await options.capabilities?.forget(serverId);
        throw new NonRetryableError({
          code: 'SERVER_NOT_FOUND',
          field: 'serverId',
          message: `MCP server ${serverId} does not exist`,
        });
      }
      const stored = safeParseJson(definitionText, serverDefinitionSchema, `stored server definition ${serverId}`);
      if (!stored.success || stored.data.id !== serverId) {
        const message = stored.success ? `its id is ${stored.data.id}` : stored.error.message;
        logger.error({ error: message }, 'skipping malformed server definition');
        throw new NonRetryableError({
          code: 'DEFINITION_INVALID',
          field: 'serverId',
          message: `stored definition of MCP server ${serverId} is malformed: ${message}`,
        });
      }
      const definition = stored.data;
      const hash = definitionHash(definition);
      const base = { serverId, definitionText };

      if (!definition.enabled) {
        const result = await options.writer.recordDisabled(base);
        logger.info('server disabled: catalog entry cleared');
        return { serverId, reason, outcome: result.written ? 'disabled' : 'superseded' };
      }

      if (!isForcedRefreshReason(reason)) {
        const skip = await backgroundSkip({ serverId, hash, requestedAt: requestedAtOf(job, parsed.data) });
        if (skip) {
          logger.debug({ skipped: skip }, 'background refresh skipped');
          return { serverId, reason, outcome: 'skipped', skipped: skip };
        }
      }

      const startedAt = Date.now();
      let secretValues: string[] = [];
      let connection: McpConnection | undefined;
      try {
        const resolved = resolveSecrets(definition, options.env);
        secretValues = resolved.secretValues;
        options.registerSecrets(secretValues);
        const listMs = definition.timeouts.listMs;
        let listChanged = false;
        // No `tools` capability: the server has no tools to offer, and asking would be an error.
        const read = async (client: Client) => {
          const tools = client.getServerCapabilities()?.tools;
          listChanged = tools?.listChanged === true;
          return tools ? await listServerTools({ client, serverId, timeoutMs: listMs, signal, secretValues }) : [];
        };
        const openFresh = async () => {
          connection = await connectMcpServer({
            definition: resolved.definition,
            logger,
            secretValues,
            clientName: 'agentq-catalog-warmer',
            allowPrivateNetwork: options.allowPrivateNetwork,
            signal,
          });
          return connection.client;
        };
        const borrowed = options.watchedConnection?.(serverId, hash);
        let rawTools: unknown[];
        if (borrowed) {
          try {
            rawTools = await read(borrowed);
          } catch (error) {
            // The watcher's long-lived connection may be what broke, not the server: one more try
            // on a fresh connection, unless the server simply did not answer in time.
            if (AgentqError.isInstance(error) && error.code === 'MCP_LIST_TIMEOUT') throw error;
            logger.info({ error: messageOf(error) }, 'list over the watcher connection failed; trying a fresh one');
            rawTools = await read(await openFresh());
          }
        } else {
          rawTools = await read(await openFresh());
        }
        await options.capabilities
          ?.write(serverId, { definitionHash: hash, listChanged, seenAt: Date.now() })
          .catch((error: unknown) => logger.warn({ error }, 'could not record server capabilities'));
        const { tools, skipped } = toCatalogTools(rawTools);
        for (const tool of skipped) logger.warn({ tool: tool.name, problem: tool.reason }, 'skipping tool');
        const result = await options.writer.recordSuccess({ ...base, tools, startedAt });
        if (!result.written) {
          logger.info('definition changed during the refresh; result dropped');
          return { serverId, reason, outcome: 'superseded' };
        }
        logger.info(
          { toolCount: tools.length, version: result.version, published: result.published },
          'catalog refreshed',
        );
        return {
          serverId,
          reason,
          outcome: 'connected',
          toolCount: tools.length,
          version: result.version,
          published: result.published,
        };
      } catch (error) {
        if (AgentqError.isInstance(error) && error.code === 'SERVER_NOT_FOUND') throw error;
        // Anything else, ours or an unexpected error from a transport, is a failed refresh of this
        // server: record it (last known good kept) with secrets masked. Only when the record
        // itself cannot be written (Redis trouble) does the original error propagate.
        const code = AgentqError.isInstance(error) ? error.code : 'MCP_REFRESH_FAILED';
        const message = maskServerError(messageOf(error), secretValues);
        const result = await options.writer.recordFailure({ ...base, error: message }).catch(() => {
          throw error;
        });
        logger.warn(
          { code, error: message, state: result.written ? result.state : 'superseded' },
          'refresh failed; last known good list kept',
        );
        throw new NonRetryableError({ code, message });
      } finally {
        if (connection) closeLater(connection);
      }
    } finally {
      running -= 1;
      await lock.release();
    }
  }

  async function backgroundSkip(input: {
    serverId: string;
    hash: string;
    requestedAt: number;
  }): Promise<'backoff' | 'fresh' | undefined> {
    const [entryText, statusText] = await options.redis.mget(keys.tools(input.serverId), keys.status(input.serverId));
    const status = statusText ? safeParseJson(statusText, catalogStatusSchema) : undefined;
    if (status?.success && status.data.definitionHash === input.hash) {
      if (status.data.nextAttemptAt !== undefined && status.data.nextAttemptAt > Date.now()) return 'backoff';
    }
    const entry = entryText ? safeParseJson(entryText, catalogEntrySchema) : undefined;
    // Read after the request was made: a background probe would learn nothing new.
    if (entry?.success && entry.data.definitionHash === input.hash && entry.data.refreshedAt >= input.requestedAt) {
      return 'fresh';
    }
    return undefined;
  }

  return {
    process(job, token, signal) {
      return withBullmqErrors(job, token, () => refresh(job, signal));
    },
    active: () => running,
    async drain() {
      while (closing.size > 0) await Promise.allSettled([...closing]);
    },
  };
}

// Job-scheduler jobs carry the template's fixed `requestedAt`; their creation time is the request.
function requestedAtOf(job: Job, data: { reason: RefreshReason; requestedAt: number }): number {
  return data.reason === 'scheduled' ? Math.max(data.requestedAt, job.timestamp) : data.requestedAt;
}
