import {
  catalogEntrySchema,
  catalogStatusSchema,
  safeParseJson,
  serverDefinitionSchema,
  silentLogger,
  type CatalogEntry,
  type CatalogStatus,
  type CatalogTool,
  type Logger,
  type SafeParseJsonResult,
  type ServerDefinition,
} from '@agentq/shared';
import { catalogEntryDigest, CatalogStore, ServerStore, type PipelineReply, type RedisConnection } from '@agentq/store';
import type { z } from 'zod';
import { assignServerSegments } from '../wire-names/assign-server-segments.js';
import { memoizedDefinitionHash } from './memoized-definition-hash.js';

/**
 * Why a read came back `cold`. `missing`: never warmed. `definition-changed`: the list was read from
 * another definition. `corrupt`: the entry (or the definition) failed its schema, or a catalog key
 * holds another Redis type. `over-budget`: the entry is over the reader's budget. `unknown-server`:
 * no such server. `disabled`: the server is turned off.
 */
export type ColdReason = 'missing' | 'definition-changed' | 'corrupt' | 'over-budget' | 'unknown-server' | 'disabled';

/** What the cache holds for one server, read without ever touching the server itself. */
export interface CatalogRead {
  serverId: string;
  /** `ready`: tools to use. `empty`: warmed, no tools. `cold`: nothing usable, see `coldReason`. */
  state: 'cold' | 'ready' | 'empty';
  /** The cached tools; `[]` unless `ready`. */
  tools: CatalogTool[];
  /** Catalog version of the entry; changes exactly when its content changes. Set unless `cold`. */
  version?: string;
  /** Outcome of the latest refresh attempt (`connected`, `stale`, `error`), when recorded. */
  status?: CatalogStatus;
  /** Milliseconds since the successful read that produced the entry. Set unless `cold`. */
  ageMs?: number;
  /** The server's current definition; `null` when it is unknown or unreadable. */
  definition: ServerDefinition | null;
  coldReason?: ColdReason;
  /**
   * The server segment of this server's wire names, decided over every enabled server in the store
   * as read in this same round trip (see `assignServerSegments`). Set unless `cold`.
   */
  wireSegment?: string;
}

/** Cache-only access to the MCP tool catalog. */
export interface CatalogReader {
  /** Reads one server. Never connects to it. */
  listTools(serverId: string): Promise<CatalogRead>;
  /** Reads several servers in one Redis round trip. Never connects to any of them. */
  readMany(serverIds: readonly string[]): Promise<Map<string, CatalogRead>>;
  /** Every valid server definition, sorted by id. */
  listServers(): Promise<ServerDefinition[]>;
  /** The current definition of one server, `null` when it is unknown or unreadable. */
  getServer?(serverId: string): Promise<ServerDefinition | null>;
}

/**
 * An entry this reader parsed, with its bytes, their `catalogEntryDigest` and the status text read
 * beside it.
 */
interface KnownEntry {
  bytes: Buffer;
  digest: string;
  statusText: string | null;
  entry: CatalogEntry;
}

/**
 * Longest a reader keeps server definitions without reading the hash again, even while
 * `P:servers.version` says nothing changed: bounds what a writer that does not move the version
 * (an older process) can hide.
 */
const DEFINITIONS_MAX_AGE_MS = 1_000;

/**
 * Least time between two `onColdServer` calls for one server and definition while it stays cold
 * (never warmed, a list of another definition, or a corrupt entry): a refresh that failed, or an
 * entry broken after it was warmed, is asked for again, never more often than this per process.
 * The warmers' backoff still decides whether a background refresh reads the server.
 */
const COLD_REQUEST_INTERVAL_MS = 30_000;

/** Options of {@link createCatalogReader}. */
export interface CreateCatalogReaderOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  /**
   * Called, without being awaited, when this reader sees a server cold: the first time for a given
   * definition hash, then again at most every `coldRequestIntervalMs` while it stays cold (an entry
   * over budget is announced once per definition only: a refresh would write the same list). In the
   * worker it enqueues a deduplicated `first-seen` refresh. A throw or a rejection is logged and
   * never reaches the reader's caller.
   */
  onColdServer?: (serverId: string, read: CatalogRead) => void | Promise<void>;
  /** @default {@link COLD_REQUEST_INTERVAL_MS} */
  coldRequestIntervalMs?: number;
  /** @default a silent logger */
  logger?: Logger;
  /** Clock for `ageMs` and for `coldRequestIntervalMs`. @default Date.now */
  now?: () => number;
  /**
   * Checked on every entry read, whoever wrote it: an entry over either bound is ignored (the
   * server reads as cold, `over-budget`), so a list that got past an older or misconfigured warmer
   * never reaches a run whole. Warmers refuse such lists in the first place.
   * @default no bound
   */
  budget?: {
    /** `AGENTQ_MAX_CATALOG_ENTRY_BYTES`: bytes of the stored entry. */
    maxEntryBytes?: number;
    /** `AGENTQ_MAX_TOOLS_PER_SERVER`. */
    maxTools?: number;
  };
}

/**
 * Creates a reader of the catalog cache. It is cache-only by construction: it holds no MCP client
 * and has no path that opens one, so a dead or slow server can never delay a run.
 */
export function createCatalogReader(options: CreateCatalogReaderOptions): CatalogReader {
  const logger = (options.logger ?? silentLogger()).child({ component: 'catalog-reader' });
  const now = options.now ?? Date.now;
  const store = new ServerStore({ redis: options.redis, prefix: options.prefix, logger });
  const catalog = new CatalogStore({ redis: options.redis, prefix: options.prefix, logger });
  const coldRequestIntervalMs = options.coldRequestIntervalMs ?? COLD_REQUEST_INTERVAL_MS;
  // When `onColdServer` was last called for each server, and for which definition hash.
  const announced = new Map<string, { hash: string; at: number }>();
  // Last parsed entry per server with the digest of its raw bytes. Parsing and validating a large
  // entry costs far more than reading it, and most reads find it unchanged: a version key
  // (`P:mcp.version.<id>`, the digest the warmer stores beside the entry) equal to the known
  // digest reuses the last parse without reading the entry at all, and equal bytes do the same
  // where the key is missing (caches written before version keys). The status must be unchanged
  // too: every warmer rewrites it with each write, while a warmer older than version keys (a
  // rolling upgrade) replaces the entry without moving the key.
  const parsedEntries = new Map<string, KnownEntry>();

  function announceCold(read: CatalogRead, hash: string): void {
    const onColdServer = options.onColdServer;
    if (!onColdServer) return;
    const at = now();
    const last = announced.get(read.serverId);
    if (last?.hash === hash && (read.coldReason === 'over-budget' || at - last.at < coldRequestIntervalMs)) return;
    announced.set(read.serverId, { hash, at });
    const report = (error: unknown) =>
      logger.warn(
        { serverId: read.serverId, error: error instanceof Error ? error.message : String(error) },
        'onColdServer failed',
      );
    try {
      const result = onColdServer(read.serverId, read);
      if (result && typeof (result as Promise<void>).then === 'function') (result as Promise<void>).catch(report);
    } catch (error) {
      report(error);
    }
  }

  // Definitions and statuses are small but read on every sync; equal text reuses the last parse
  // (and so the same definition object, whose hash is then cached too). Keyed by server id, then by
  // kind, then by the text itself, never by a concatenation: the texts of an unchanged read are the
  // same strings as last time, whose hashes V8 keeps, where a new key string would be hashed whole.
  type SmallKind = 'server definition' | 'catalog status';
  const smallParses = new Map<string, Record<SmallKind, Map<string, unknown>>>();
  let smallParseCount = 0;
  function parseCached<S extends z.ZodType>(
    text: string,
    schema: S,
    kind: SmallKind,
    serverId: string,
  ): SafeParseJsonResult<z.output<S>> {
    const known = smallParses.get(serverId)?.[kind].get(text) as SafeParseJsonResult<z.output<S>> | undefined;
    if (known) return known;
    const parsed = safeParseJson(text, schema, `${kind} ${serverId}`);
    if (parsed.success) {
      // Bounded: at most a few entries per server; drop everything when it grows past that.
      if (smallParseCount >= 4_096) {
        smallParses.clear();
        smallParseCount = 0;
      }
      let texts = smallParses.get(serverId);
      if (!texts) {
        texts = { 'server definition': new Map(), 'catalog status': new Map() };
        smallParses.set(serverId, texts);
      }
      texts[kind].set(text, parsed);
      smallParseCount += 1;
    }
    return parsed;
  }

  function interpret(
    serverId: string,
    values: {
      definitionText: string | null;
      entryBytes: Buffer | 'unchanged' | null;
      statusText: string | null;
      /** Why the entry or status key could not be read at all (a key of the wrong type, say). */
      unreadable?: string;
    },
    known: KnownEntry | undefined,
    wireSegment: string | undefined,
  ): CatalogRead {
    const { definitionText, entryBytes, statusText } = values;
    if (definitionText === null || definitionText === undefined) {
      return { serverId, state: 'cold', tools: [], definition: null, coldReason: 'unknown-server' };
    }
    const definitionParsed = parseCached(definitionText, serverDefinitionSchema, 'server definition', serverId);
    if (!definitionParsed.success || definitionParsed.data.id !== serverId) {
      logger.warn(
        { serverId, error: definitionParsed.success ? 'id does not match its key' : definitionParsed.error.message },
        'corrupt server definition; treating the server as cold',
      );
      return { serverId, state: 'cold', tools: [], definition: null, coldReason: 'corrupt' };
    }
    const definition = definitionParsed.data;
    let status: CatalogStatus | undefined;
    if (statusText !== null && statusText !== undefined) {
      const statusParsed = parseCached(statusText, catalogStatusSchema, 'catalog status', serverId);
      if (statusParsed.success) status = statusParsed.data;
      else logger.warn({ serverId, error: statusParsed.error.message }, 'ignoring corrupt catalog status');
    }
    if (!definition.enabled) {
      return { serverId, state: 'cold', tools: [], definition, status, coldReason: 'disabled' };
    }
    const hash = memoizedDefinitionHash(definition);
    const cold = (coldReason: ColdReason): CatalogRead => {
      const read: CatalogRead = { serverId, state: 'cold', tools: [], definition, status, coldReason };
      announceCold(read, hash);
      return read;
    };
    if (values.unreadable !== undefined) {
      // One server's unreadable key must not take the others down with it; a refresh overwrites it.
      logger.warn({ serverId, error: values.unreadable }, 'cannot read catalog keys; treating the server as cold');
      return cold('corrupt');
    }
    if (entryBytes === null) return cold('missing');
    let entryParsed: ReturnType<typeof safeParseJson<typeof catalogEntrySchema>>;
    if (entryBytes === 'unchanged') {
      // Only asked for with a known entry, whose bytes passed the byte budget when they were read;
      // kept total for the type.
      if (!known) return cold('missing');
      entryParsed = { success: true, data: known.entry };
    } else if (options.budget?.maxEntryBytes !== undefined && entryBytes.length > options.budget.maxEntryBytes) {
      const maxEntryBytes = options.budget.maxEntryBytes;
      logger.warn({ serverId, bytes: entryBytes.length, maxEntryBytes }, 'catalog entry over budget; ignoring it');
      return cold('over-budget');
    } else if (known && known.bytes.equals(entryBytes)) {
      entryParsed = { success: true, data: known.entry };
      if (known.statusText !== statusText) parsedEntries.set(serverId, { ...known, statusText });
    } else {
      entryParsed = safeParseJson(entryBytes.toString('utf8'), catalogEntrySchema, `catalog entry ${serverId}`);
      if (entryParsed.success) {
        parsedEntries.set(serverId, {
          bytes: entryBytes,
          digest: catalogEntryDigest(entryBytes),
          statusText,
          entry: entryParsed.data,
        });
      } else {
        parsedEntries.delete(serverId);
      }
    }
    if (!entryParsed.success) {
      logger.warn(
        { serverId, code: entryParsed.error.code, error: entryParsed.error.message },
        'corrupt catalog entry; treating the server as cold',
      );
      return cold('corrupt');
    }
    const entry = entryParsed.data;
    const maxTools = options.budget?.maxTools;
    if (maxTools !== undefined && entry.tools.length > maxTools) {
      logger.warn({ serverId, toolCount: entry.tools.length, maxTools }, 'catalog entry over budget; ignoring it');
      return cold('over-budget');
    }
    // A list is only valid for the definition it was read from: an old command line or URL may
    // point at a different server altogether.
    if (entry.definitionHash !== hash) return cold('definition-changed');
    const read: CatalogRead = {
      serverId,
      state: entry.tools.length === 0 ? 'empty' : 'ready',
      tools: entry.tools,
      version: entry.version,
      status,
      ageMs: Math.max(0, now() - entry.refreshedAt),
      definition,
    };
    if (wireSegment !== undefined) read.wireSegment = wireSegment;
    return read;
  }

  // Segments of the last enabled-id set, reused while the set is unchanged (the common case).
  let lastSegments: { key: string; segments: Map<string, string> } | undefined;
  // The definitions the last segments were decided from. Most reads find the same texts: comparing
  // them costs no parse, no cache key and no sort, where a large fleet has hundreds of servers.
  let lastDefinitions: Record<string, string> | undefined;
  function sameDefinitions(definitions: Record<string, string>): boolean {
    const last = lastDefinitions;
    if (!last) return false;
    if (last === definitions) return true;
    const ids = Object.keys(definitions);
    if (ids.length !== Object.keys(last).length) return false;
    for (const serverId of ids) {
      if (!Object.hasOwn(last, serverId) || last[serverId] !== definitions[serverId]) return false;
    }
    return true;
  }
  function segmentsFor(definitions: Record<string, string>): Map<string, string> {
    if (lastSegments && sameDefinitions(definitions)) return lastSegments.segments;
    const enabled: string[] = [];
    for (const [serverId, text] of Object.entries(definitions)) {
      const parsed = parseCached(text, serverDefinitionSchema, 'server definition', serverId);
      if (parsed.success && parsed.data.id === serverId && parsed.data.enabled) enabled.push(serverId);
    }
    enabled.sort();
    const key = enabled.join('\0');
    if (lastSegments?.key !== key) lastSegments = { key, segments: assignServerSegments(enabled) };
    lastDefinitions = definitions;
    return lastSegments.segments;
  }

  // The definitions hash as last read, under the `P:servers.version` read before it. While the
  // version stays, a read asks for the version only: a large fleet's hundreds of definitions are
  // neither sent nor converted on every run start. Every writer of the hash moves the version in the
  // same script or transaction; a writer that does not (a process older than the version key,
  // during a rolling upgrade) is caught up with at most DEFINITIONS_MAX_AGE_MS later.
  let knownDefinitions: { version: string; definitions: Record<string, string>; readAt: number } | undefined;

  async function readMany(serverIds: readonly string[]): Promise<Map<string, CatalogRead>> {
    const ids = [...new Set(serverIds)];
    const out = new Map<string, CatalogRead>();
    if (ids.length === 0) return out;
    // Snapshot the known entries and definitions, in case a concurrent read replaces them meanwhile.
    const known = ids.map((serverId) => parsedEntries.get(serverId));
    const held =
      knownDefinitions && performance.now() - knownDefinitions.readAt < DEFINITIONS_MAX_AGE_MS
        ? knownDefinitions
        : undefined;
    // Every definition, not only the ones read: wire names are decided over all enabled servers,
    // so that every process names a tool the same whatever subset it has synced. One pipeline on a
    // single Redis; on a cluster one per master, in parallel (each server has its own hash tag).
    // A server this reader holds an entry for is asked for its version key only; one it has never
    // read is asked for its entry at once, so a first read stays one round trip.
    const readAt = performance.now();
    const fetched = await catalog.readForReader(ids, known, held?.version);
    const { replies, definitionsVersion } = fetched;
    const definitionsReply = fetched.definitions === 'unchanged' ? undefined : fetched.definitions;
    const [definitionsError, definitionsValue] = definitionsReply ?? [null, held?.definitions];
    if (definitionsError) {
      // Without the definitions nothing can be interpreted: every server reads as cold, which
      // never evicts a registered tool.
      logger.warn({ error: String(definitionsError) }, 'cannot read server definitions; treating servers as cold');
      for (const serverId of ids) {
        out.set(serverId, { serverId, state: 'cold', tools: [], definition: null, coldReason: 'corrupt' });
      }
      return out;
    }
    const none: PipelineReply = [null, null];
    const definitions = (definitionsValue ?? {}) as Record<string, string>;
    if (definitionsReply) {
      knownDefinitions =
        definitionsVersion === undefined ? undefined : { version: definitionsVersion, definitions, readAt };
    }
    const segments = segmentsFor(definitions);
    ids.forEach((serverId, index) => {
      const reply = replies[index] ?? { entry: none, status: none };
      const unchanged = reply.entry === 'unchanged';
      const pair = [reply.entry === 'unchanged' ? none : reply.entry, reply.status];
      const failed = pair.find(([error]) => error);
      const [entryBytes, statusText] = pair.map(([, value]) => value as unknown);
      const definitionText = Object.hasOwn(definitions, serverId) ? definitions[serverId] : undefined;
      const values = {
        definitionText: typeof definitionText === 'string' ? definitionText : null,
        entryBytes: unchanged ? ('unchanged' as const) : Buffer.isBuffer(entryBytes) ? entryBytes : null,
        statusText: typeof statusText === 'string' ? statusText : null,
        ...(failed ? { unreadable: String(failed[0]) } : {}),
      };
      out.set(serverId, interpret(serverId, values, known[index], segments.get(serverId)));
    });
    return out;
  }

  return {
    async listTools(serverId) {
      const reads = await readMany([serverId]);
      return reads.get(serverId) as CatalogRead;
    },
    readMany,
    listServers: () => store.list(),
    getServer: (serverId) => store.get(serverId),
  };
}
