import {
  catalogEntrySchema,
  catalogStatusSchema,
  catalogUpdatedEventSchema,
  definitionHash,
  digestOf,
  maskServerError,
  MAX_SKIPPED_TOOLS_SHOWN,
  safeParseJson,
  serverDefinitionSchema,
  type CatalogCacheScope,
  type CatalogEntry,
  type CatalogReadBy,
  type CatalogStatus,
  type CatalogTool,
  type Logger,
} from '@agentq/shared';
import { isClusterConnection, keyNames, type KeyNames, type RedisConnection } from '@agentq/store';
import { nextAttemptAfterFailure, nextAttemptAfterSuccess } from '../refresh/backoff.js';

// One atomic step for entry + status + event, guarded twice:
// - the stored definition must still be the exact text the refresh started from, so a refresh
//   that raced a definition change, a disable or a removal never writes a list for a definition
//   that is gone (returns 0);
// - the entry must still be what the caller read, so two writers never interleave (returns -1).
// The version key (KEYS[5]) always ends as the SHA-1 of the stored entry, or absent with it: a
// `keep` backfills it for entries written before version keys existed.
const commitScript = `
local definition = redis.call('HGET', KEYS[1], ARGV[1])
if (definition or '') ~= ARGV[2] then return 0 end
local entry = redis.call('GET', KEYS[2])
if (entry or '') ~= ARGV[3] then return -1 end
if ARGV[4] == 'set' then
  redis.call('SET', KEYS[2], ARGV[5])
  redis.call('SET', KEYS[5], redis.sha1hex(ARGV[5]))
elseif ARGV[4] == 'delete' or not entry then
  redis.call('DEL', KEYS[2], KEYS[5])
else
  redis.call('SET', KEYS[5], redis.sha1hex(entry))
end
redis.call('SET', KEYS[3], ARGV[6])
if ARGV[7] ~= '' then redis.call('PUBLISH', KEYS[4], ARGV[7]) end
return 1
`;

// The same step for a Redis Cluster, where the definitions hash and a server's keys sit in
// different slots: the definition is checked before and after, outside the script, and the
// channel is an argument (a channel is not a key, and classic PUBLISH reaches every node).
// KEYS: entry, status, version. ARGV: expected entry, mode, entry, status, event, channel.
const commitServerScript = `
local entry = redis.call('GET', KEYS[1])
if (entry or '') ~= ARGV[1] then return -1 end
if ARGV[2] == 'set' then
  redis.call('SET', KEYS[1], ARGV[3])
  redis.call('SET', KEYS[3], redis.sha1hex(ARGV[3]))
elseif ARGV[2] == 'delete' or not entry then
  redis.call('DEL', KEYS[1], KEYS[3])
else
  redis.call('SET', KEYS[3], redis.sha1hex(entry))
end
redis.call('SET', KEYS[2], ARGV[4])
if ARGV[5] ~= '' then redis.call('PUBLISH', ARGV[6], ARGV[5]) end
return 1
`;

// Clears what a removed server left behind, unless it was added again meanwhile.
const clearScript = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
local existed = redis.call('DEL', KEYS[2])
redis.call('DEL', KEYS[3], KEYS[5], KEYS[6])
if existed == 1 then redis.call('PUBLISH', KEYS[4], ARGV[2]) end
return 1
`;

/** How a write ended. `superseded`: the definition changed, was disabled or removed meanwhile. */
export type WriteResult =
  | {
      written: true;
      state: CatalogStatus['state'];
      version: string | undefined;
      published: boolean;
      /** When the `ttlMs` hint asks for the next background refresh (epoch ms), if it does. */
      nextRefreshAt?: number;
    }
  | { written: false; reason: 'superseded' };

/** The skipped tools a status shows: the first few, names and reasons cut to the schema's bounds. */
function shownSkips(
  skipped: ReadonlyArray<{ name: string; reason: string }> | undefined,
): Array<{ name: string; reason: string }> | undefined {
  if (!skipped || skipped.length === 0) return undefined;
  return skipped
    .slice(0, MAX_SKIPPED_TOOLS_SHOWN)
    .map((each) => ({ name: each.name.slice(0, 200), reason: each.reason.slice(0, 500) }));
}

/** What a refresh started from: the stored definition text, as read at the start. */
export interface RefreshBase {
  serverId: string;
  definitionText: string;
}

interface Snapshot {
  entryText: string;
  entry: CatalogEntry | undefined;
  status: CatalogStatus | undefined;
}

const MAX_ATTEMPTS = 8;

/** Options of {@link CatalogWriter}. */
export interface CatalogWriterOptions {
  redis: RedisConnection;
  prefix: string;
  logger: Logger;
  /**
   * Stores the vectors of a list's tools before the list is written, so that a worker that sees
   * the new version finds them (`AGENTQ_EMBEDDING_MODEL`). Must not throw: a failing model leaves
   * search lexical and never holds back the list.
   * @default none
   */
  embedTools?: (serverId: string, tools: readonly CatalogTool[]) => Promise<void>;
}

/**
 * The only writer of `P:mcp.tools.<id>`, `P:mcp.version.<id>` and `P:mcp.status.<id>`. Every write
 * is one Lua script: entry, version, status and the `catalog.updated` event change together or not
 * at all, so a reader never sees half an update.
 */
export class CatalogWriter {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;
  private readonly logger: Logger;
  private readonly embedTools: CatalogWriterOptions['embedTools'];

  constructor(options: CatalogWriterOptions) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
    this.logger = options.logger;
    this.embedTools = options.embedTools;
  }

  /**
   * Records a successful read. The entry is replaced (its `refreshedAt` is when the read began,
   * so a request made after that point is known not to be covered by it). `catalog.updated` is
   * published only when readers' view changes: no entry before, another version, or another
   * definition hash. Who read the list and its cache hints go into entry and status; with
   * `refreshAfterMs` (an already clamped `ttlMs`) the status also says when the next background
   * refresh is due.
   */
  async recordSuccess(
    input: RefreshBase & {
      tools: CatalogTool[];
      startedAt: number;
      readBy?: CatalogReadBy;
      ttlMs?: number;
      cacheScope?: CatalogCacheScope;
      refreshAfterMs?: number;
      /** Tools left out or changed on the way in, and why; recorded on the status. @default none */
      skipped?: ReadonlyArray<{ name: string; reason: string }>;
    },
  ): Promise<WriteResult> {
    const version = digestOf(input.tools);
    const hints = { readBy: input.readBy, ttlMs: input.ttlMs, cacheScope: input.cacheScope };
    // Unchanged tools cost one existence check: vectors are keyed by the digest of their text.
    if (this.embedTools && input.tools.length > 0) await this.embedTools(input.serverId, input.tools);
    return await this.commit(input, (snapshot, hash, now) => {
      const entry = catalogEntrySchema.parse({
        tools: input.tools,
        definitionHash: hash,
        refreshedAt: input.startedAt,
        state: 'connected',
        version,
        ...hints,
      });
      const status = catalogStatusSchema.parse({
        state: 'connected',
        lastAttemptAt: now,
        lastSuccessAt: now,
        toolCount: input.tools.length,
        failures: 0,
        nextAttemptAt: nextAttemptAfterSuccess({ toolCount: input.tools.length, now }),
        definitionHash: hash,
        ...hints,
        nextRefreshAt: input.refreshAfterMs === undefined ? undefined : now + input.refreshAfterMs,
        skippedTools: shownSkips(input.skipped),
      });
      const changed = !snapshot.entry || snapshot.entry.version !== version || snapshot.entry.definitionHash !== hash;
      return {
        mode: 'set',
        entryText: JSON.stringify(entry),
        status,
        publish: changed ? { serverId: input.serverId, version } : undefined,
        version,
      };
    });
  }

  /**
   * Records a failed read. Last known good: an entry read from the same definition keeps its
   * tools and is marked `stale`; otherwise the entry is left as it is (an entry of an older
   * definition stays invisible to readers through its hash) and the status says `error`. The
   * failure count and `nextAttemptAt` grow the backoff.
   */
  async recordFailure(input: RefreshBase & { error: string; code?: string }): Promise<WriteResult> {
    return await this.commit(input, (snapshot, hash, now) => {
      const previous = snapshot.status?.definitionHash === hash ? snapshot.status : undefined;
      const failures = (previous?.failures ?? 0) + 1;
      // An authorization refusal is not retried on the backoff: background refreshes skip the
      // server until an operator acts (see `isAuthCatalogState` in the refresh processor).
      const authState = authStateOf(input.code);
      const nextAttemptAt = authState ? undefined : nextAttemptAfterFailure({ failures, now });
      const good = snapshot.entry?.definitionHash === hash ? snapshot.entry : undefined;
      const status = catalogStatusSchema.parse({
        state: authState ?? (good ? 'stale' : 'error'),
        // Callers mask secrets; the bound holds here too, whoever calls, so a server that answers
        // with a megabyte of error page cannot grow the status record.
        error: maskServerError(input.error, []),
        errorCode: input.code?.slice(0, 100),
        lastAttemptAt: now,
        lastSuccessAt: previous?.lastSuccessAt ?? good?.refreshedAt,
        toolCount: good?.tools.length ?? 0,
        failures,
        nextAttemptAt,
        definitionHash: hash,
        // What the kept list is: who read it and how it may be cached.
        readBy: good?.readBy,
        ttlMs: good?.ttlMs,
        cacheScope: good?.cacheScope,
      });
      if (!good || good.state === 'stale') {
        return { mode: 'keep', entryText: '', status, publish: undefined, version: good?.version };
      }
      const entry = catalogEntrySchema.parse({ ...good, state: 'stale' });
      return { mode: 'set', entryText: JSON.stringify(entry), status, publish: undefined, version: good.version };
    });
  }

  /**
   * Records a failed connect of a server's watcher the way {@link recordFailure} records a failed
   * refresh, as long as the stored definition is still the enabled one the watcher tried (`hash`).
   */
  async recordWatcherFailure(input: {
    serverId: string;
    definitionHash: string;
    error: string;
    code?: string;
  }): Promise<WriteResult> {
    const definitionText = await this.sameListDefinition(input.serverId, input.definitionHash, true);
    if (definitionText === undefined) return { written: false, reason: 'superseded' };
    return await this.recordFailure({ serverId: input.serverId, definitionText, error: input.error, code: input.code });
  }

  /** Clears the entry of a disabled server and marks it `disabled`. */
  async recordDisabled(input: RefreshBase): Promise<WriteResult> {
    return await this.commit(input, (snapshot, hash, now) => {
      const status = catalogStatusSchema.parse({
        state: 'disabled',
        lastAttemptAt: now,
        lastSuccessAt: snapshot.status?.lastSuccessAt,
        toolCount: 0,
        failures: 0,
        definitionHash: hash,
      });
      return {
        mode: 'delete',
        entryText: '',
        status,
        publish: snapshot.entryText === '' ? undefined : { serverId: input.serverId, version: '' },
        version: undefined,
      };
    });
  }

  /**
   * Deletes entry, version key, status and session generation of a server that no longer exists.
   * Returns whether it cleared.
   */
  async clearRemoved(serverId: string): Promise<boolean> {
    const event = catalogUpdatedEventSchema.parse({ serverId, version: '' });
    if (isClusterConnection(this.redis)) {
      // Cross-slot on a cluster: a server added again right after the check loses its cache, and
      // the `put` that re-added it asks for a refresh anyway.
      if ((await this.redis.hexists(this.keys.servers, serverId)) === 1) return false;
      const existed = await this.redis.del(this.keys.tools(serverId));
      await this.redis.del(
        this.keys.status(serverId),
        this.keys.serverSession(serverId),
        this.keys.catalogVersion(serverId),
      );
      if (existed === 1) await this.redis.publish(this.keys.catalogUpdated, JSON.stringify(event));
      return true;
    }
    const result = await this.redis.eval(
      clearScript,
      6,
      this.keys.servers,
      this.keys.tools(serverId),
      this.keys.status(serverId),
      this.keys.catalogUpdated,
      this.keys.serverSession(serverId),
      this.keys.catalogVersion(serverId),
      serverId,
      JSON.stringify(event),
    );
    return Number(result) === 1;
  }

  /**
   * The stored definition text when it still describes the same tool list (same hash, same
   * enabled flag), else `undefined`: the definition changed, was turned off or removed.
   */
  private async sameListDefinition(serverId: string, hash: string, enabled: boolean): Promise<string | undefined> {
    const current = await this.redis.hget(this.keys.servers, serverId);
    if (current === null) return undefined;
    const parsed = safeParseJson(current, serverDefinitionSchema, `server definition ${serverId}`);
    if (!parsed.success || definitionHash(parsed.data) !== hash || parsed.data.enabled !== enabled) return undefined;
    return current;
  }

  private async snapshot(serverId: string): Promise<Snapshot> {
    const [entryText, statusText] = await this.redis.mget(this.keys.tools(serverId), this.keys.status(serverId));
    let entry: CatalogEntry | undefined;
    if (entryText !== null && entryText !== undefined) {
      const parsed = safeParseJson(entryText, catalogEntrySchema, `catalog entry ${serverId}`);
      if (parsed.success) entry = parsed.data;
      else this.logger.warn({ serverId, error: parsed.error.message }, 'replacing unreadable catalog entry');
    }
    let status: CatalogStatus | undefined;
    if (statusText !== null && statusText !== undefined) {
      const parsed = safeParseJson(statusText, catalogStatusSchema, `catalog status ${serverId}`);
      if (parsed.success) status = parsed.data;
    }
    return { entryText: entryText ?? '', entry, status };
  }

  private async commit(
    base: RefreshBase,
    build: (
      snapshot: Snapshot,
      hash: string,
      now: number,
    ) => {
      mode: 'set' | 'keep' | 'delete';
      entryText: string;
      status: CatalogStatus;
      publish: { serverId: string; version: string } | undefined;
      version: string | undefined;
    },
  ): Promise<WriteResult> {
    let definitionText = base.definitionText;
    const parsedBase = safeParseJson(definitionText, serverDefinitionSchema, `server definition ${base.serverId}`);
    if (!parsedBase.success) return { written: false, reason: 'superseded' };
    const hash = definitionHash(parsedBase.data);
    const enabled = parsedBase.data.enabled;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const cluster = isClusterConnection(this.redis);
      if (cluster && ((await this.redis.hget(this.keys.servers, base.serverId)) ?? '') !== definitionText) {
        const next = await this.sameListDefinition(base.serverId, hash, enabled);
        if (next === undefined) return { written: false, reason: 'superseded' };
        definitionText = next;
        continue;
      }
      const snapshot = await this.snapshot(base.serverId);
      const plan = build(snapshot, hash, Date.now());
      const event = plan.publish ? JSON.stringify(catalogUpdatedEventSchema.parse(plan.publish)) : '';
      const result = Number(
        cluster
          ? await this.redis.eval(
              commitServerScript,
              3,
              this.keys.tools(base.serverId),
              this.keys.status(base.serverId),
              this.keys.catalogVersion(base.serverId),
              snapshot.entryText,
              plan.mode,
              plan.entryText,
              JSON.stringify(plan.status),
              event,
              this.keys.catalogUpdated,
            )
          : await this.redis.eval(
              commitScript,
              5,
              this.keys.servers,
              this.keys.tools(base.serverId),
              this.keys.status(base.serverId),
              this.keys.catalogUpdated,
              this.keys.catalogVersion(base.serverId),
              base.serverId,
              definitionText,
              snapshot.entryText,
              plan.mode,
              plan.entryText,
              JSON.stringify(plan.status),
              event,
            ),
      );
      if (result === 1 && cluster && (await this.sameListDefinition(base.serverId, hash, enabled)) === undefined) {
        // The definition changed or went away while this write ran. Readers already ignore an
        // entry of another definition hash, and the change asks for its own refresh; a removed
        // server's keys are cleared here so that nothing is left behind.
        await this.clearRemoved(base.serverId);
        return { written: false, reason: 'superseded' };
      }
      if (result === 1) {
        return {
          written: true,
          state: plan.status.state,
          version: plan.version,
          published: plan.publish !== undefined,
          ...(plan.status.nextRefreshAt === undefined ? {} : { nextRefreshAt: plan.status.nextRefreshAt }),
        };
      }
      if (result === 0) {
        // The stored text changed. Edits that keep the hash and the enabled flag (display name,
        // timeouts, approval lists) leave the list valid: write against the new text.
        const next = await this.sameListDefinition(base.serverId, hash, enabled);
        if (next === undefined) return { written: false, reason: 'superseded' };
        definitionText = next;
      }
    }
    throw new Error(`catalog write for ${base.serverId} kept conflicting`);
  }
}

/** The status state of an authorization refusal's code, or `undefined` for any other failure. */
function authStateOf(code: string | undefined): 'auth-required' | 'auth-failed' | undefined {
  if (code === 'MCP_AUTH_REQUIRED') return 'auth-required';
  if (code === 'MCP_AUTH_FAILED') return 'auth-failed';
  return undefined;
}
