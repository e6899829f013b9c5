import {
  catalogEntrySchema,
  catalogStatusSchema,
  digestOf,
  maskServerError,
  MAX_SKIPPED_TOOLS_SHOWN,
  type CatalogCacheScope,
  type CatalogReadBy,
  type CatalogStatus,
  type CatalogTool,
  type Logger,
} from '@agentq/shared';
import { CatalogStore, type CatalogWriteBase, type RedisConnection } from '@agentq/store';
import { nextAttemptAfterFailure, nextAttemptAfterSuccess } from '../refresh/backoff.js';

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
export type RefreshBase = CatalogWriteBase;

/** Options of {@link CatalogWriter}. */
export interface CatalogWriterOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  logger: Logger;
  /**
   * Stores the vectors of a list's tools before the list is written, so that a worker that sees
   * the new version finds them (`AGENTQ_EMBEDDING_MODEL`). Must not throw: a failing model leaves
   * search lexical and never holds back the list.
   * @default none
   */
  embedTools?: (serverId: string, tools: readonly CatalogTool[]) => Promise<void>;
  /**
   * Starts writing example requests for a list's new tools once the list is written
   * (`AGENTQ_SEARCH_ENRICH_MODEL`). Called without waiting: it must return at once and never throw.
   * @default none
   */
  enrichTools?: (serverId: string, tools: readonly CatalogTool[]) => void;
}

/**
 * What the warmer records after each read: the entry and status a success, a failure or a disable
 * leaves, the backoff and when `catalog.updated` is published. The {@link CatalogStore} writes each
 * one atomically, compare-and-set.
 */
export class CatalogWriter {
  private readonly store: CatalogStore;
  private readonly embedTools: CatalogWriterOptions['embedTools'];
  private readonly enrichTools: CatalogWriterOptions['enrichTools'];

  constructor(options: CatalogWriterOptions) {
    this.store = new CatalogStore({ redis: options.redis, prefix: options.prefix, logger: options.logger });
    this.embedTools = options.embedTools;
    this.enrichTools = options.enrichTools;
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
    const result = await this.commit(input, (snapshot, hash, now) => {
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
    // After the write: one generation per new tool would hold a list back for minutes.
    if (result.written && this.enrichTools && input.tools.length > 0) this.enrichTools(input.serverId, input.tools);
    return result;
  }

  /**
   * Records a failed read. Last known good: an entry read from the same definition keeps its
   * tools and is marked `stale`; otherwise the entry is left as it is (an entry of an older
   * definition stays invisible to readers through its hash) and the status says `error`. An entry
   * that cannot be read at all (not JSON, not an entry, a key of another type) is deleted. The
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
      // An entry that cannot be read serves no run: it goes, so that the state says `error` and
      // readers stop taking the server for corrupt (a key of another type goes in the script).
      if (snapshot.entryText !== '' && !snapshot.entry) {
        return { mode: 'delete', entryText: '', status, publish: undefined, version: undefined };
      }
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
    const definitionText = await this.store.sameListDefinition(input.serverId, input.definitionHash, true);
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
    return await this.store.clearRemoved(serverId);
  }

  private async commit(base: RefreshBase, plan: Parameters<CatalogStore['write']>[1]): Promise<WriteResult> {
    const outcome = await this.store.write(base, plan);
    if (!outcome.written) return outcome;
    const { status, version, publish } = outcome.plan;
    return {
      written: true,
      state: status.state,
      version,
      published: publish !== undefined,
      ...(status.nextRefreshAt === undefined ? {} : { nextRefreshAt: status.nextRefreshAt }),
    };
  }
}

/** The status state of an authorization refusal's code, or `undefined` for any other failure. */
function authStateOf(code: string | undefined): 'auth-required' | 'auth-failed' | undefined {
  if (code === 'MCP_AUTH_REQUIRED') return 'auth-required';
  if (code === 'MCP_AUTH_FAILED') return 'auth-failed';
  return undefined;
}
