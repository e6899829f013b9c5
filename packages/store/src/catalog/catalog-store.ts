import {
  catalogEntrySchema,
  catalogStatusSchema,
  catalogUpdatedEventSchema,
  definitionHash,
  safeParseJson,
  serverDefinitionSchema,
  silentLogger,
  ValidationError,
  type CatalogEntry,
  type CatalogStatus,
  type Logger,
  type SafeParseJsonResult,
} from '@agentq/shared';
import { z } from 'zod';
import { keyNames, type KeyNames } from '../keys.js';
import { isClusterConnection, type RedisConnection } from '../redis/create-redis-connection.js';
import { isWrongTypeError } from '../redis/redis-answers.js';
import { mgetBySlot, pipelineBySlot, type PipelineReply, type SlotCommand } from '../redis/pipeline-by-slot.js';
import { runStoreScript } from '../scripts/store-scripts.js';
import { ServerStore } from '../servers/server-store.js';

const capabilitySchema = z.strictObject({
  definitionHash: z.string().min(1),
  listChanged: z.boolean(),
  seenAt: z.number().int().nonnegative(),
});

/** What the last successful read learned about a server's `tools/list_changed` support. */
export type ServerCapability = z.output<typeof capabilitySchema>;

/**
 * One server's catalog entry and status, each parsed, or `null` when absent. A key of another Redis
 * type reads as a failed parse.
 */
export interface CatalogRecord {
  entry: SafeParseJsonResult<CatalogEntry> | null;
  status: SafeParseJsonResult<CatalogStatus> | null;
  /**
   * Whether runs get nothing from the cache because it cannot be read: the entry is not JSON or not
   * an entry, or the entry or status key holds another Redis type (the registry's reader then reads
   * the server as cold, `corrupt`). A status that is merely not valid JSON is ignored, as readers do.
   */
  corrupt: boolean;
}

/** What a write started from: the stored definition text, as read at the start. */
export interface CatalogWriteBase {
  serverId: string;
  definitionText: string;
}

/** The entry and status as a write found them. */
export interface CatalogSnapshot {
  /** The entry's exact text, `''` when there is none: the compare-and-set compares against it. */
  entryText: string;
  /** The entry, when it parses. */
  entry: CatalogEntry | undefined;
  status: CatalogStatus | undefined;
}

/** What one write does, decided from the snapshot by the caller. */
export interface CatalogWritePlan {
  /** `set`: replace the entry with `entryText`; `delete`: drop it; `keep`: leave it. */
  mode: 'set' | 'keep' | 'delete';
  entryText: string;
  status: CatalogStatus;
  /** The `catalog.updated` event to publish, if any. */
  publish: { serverId: string; version: string } | undefined;
  version: string | undefined;
}

/** How a write ended. `superseded`: the definition changed, was disabled or removed meanwhile. */
export type CatalogWriteOutcome = { written: true; plan: CatalogWritePlan } | { written: false; reason: 'superseded' };

/** What {@link CatalogStore.readForReader} found for one server. */
export interface CatalogReaderReply {
  /** The entry's bytes, or `unchanged` when its version and status match the known ones. */
  entry: PipelineReply | 'unchanged';
  status: PipelineReply;
}

/** An entry a reader already parsed: the digest of its bytes and the status text read beside it. */
export interface KnownCatalogEntry {
  digest: string;
  statusText: string | null;
}

const MAX_ATTEMPTS = 8;
const NONE: PipelineReply = [null, null];

/** Options of {@link CatalogStore}. */
export interface CatalogStoreOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  /** @default a silent logger */
  logger?: Logger;
}

/**
 * The owner of the MCP tool catalog: each server's entry (`P:mcp.tools.<id>`), its version
 * (`P:mcp.version.<id>`), its status (`P:mcp.status.<id>`), the `catalog.updated` channel and the
 * warmers' record of `tools.listChanged` support (`P:warmer.capabilities`). Warmers write through
 * it; the registry's reader, the client, the API's pages and metrics read through it.
 *
 * Every write is one Lua script: entry, version, status and the event change together or not at
 * all, so a reader never sees half an update.
 */
export class CatalogStore {
  private readonly redis: RedisConnection;
  private readonly keys: KeyNames;
  private readonly servers: ServerStore;
  private readonly logger: Logger;

  constructor(options: CatalogStoreOptions) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
    this.logger = options.logger ?? silentLogger();
    this.servers = new ServerStore({ redis: options.redis, prefix: options.prefix, logger: this.logger });
  }

  /** The entry and status of one server. */
  async read(serverId: string): Promise<CatalogRecord> {
    return (await this.readMany([serverId]))[0] as CatalogRecord;
  }

  /**
   * Entries and statuses of several servers in as few round trips as the connection allows. A key
   * of another Redis type is reported in its record (see {@link CatalogRecord}), never thrown: one
   * damaged key must not hide every other server, nor stop the refresh that overwrites it.
   */
  async readMany(serverIds: readonly string[]): Promise<CatalogRecord[]> {
    const replies = await pipelineBySlot(
      this.redis,
      serverIds.flatMap((serverId) => [
        this.getCommand(this.keys.tools(serverId)),
        this.getCommand(this.keys.status(serverId)),
      ]),
    );
    const parse = <S extends z.ZodType>(reply: PipelineReply | undefined, schema: S, what: string) => {
      const [error, value] = reply ?? NONE;
      if (error && !isWrongTypeError(error)) throw error;
      if (error) {
        const issues = [{ field: '', message: 'the key holds another Redis type, not a string' }];
        return { success: false as const, error: new ValidationError({ what, issues }) };
      }
      return typeof value === 'string' ? safeParseJson(value, schema, what) : null;
    };
    return serverIds.map((_serverId, index) => {
      const entryReply = replies[index * 2];
      const statusReply = replies[index * 2 + 1];
      const entry = parse(entryReply, catalogEntrySchema, 'catalog entry');
      const status = parse(statusReply, catalogStatusSchema, 'catalog status');
      const statusWrongType = statusReply?.[0] !== null && statusReply?.[0] !== undefined;
      return { entry, status, corrupt: entry?.success === false || statusWrongType };
    });
  }

  /** Whether a catalog entry (valid or not) is stored for the server. */
  async hasEntry(serverId: string): Promise<boolean> {
    return (await this.redis.exists(this.keys.tools(serverId))) === 1;
  }

  /**
   * Keeps the snapshot of each catalog version (`P:mcp.snapshot.<serverId>.<version>`) readable for
   * `ttlSeconds`, copying a missing one from the server's entry while the entry is still that
   * version. Runs call it with the versions they show the model, each attempt, with a TTL longer
   * than a finished run lives: so a snapshot outlives every run that was shown it. Returns, per pin,
   * whether its snapshot exists now. One script per server, sent together.
   */
  async pinSnapshots(
    pins: ReadonlyArray<{ serverId: string; version: string }>,
    ttlSeconds: number,
  ): Promise<boolean[]> {
    const replies = await Promise.all(
      pins.map(({ serverId, version }) =>
        runStoreScript(
          this.redis,
          'catalogPinSnapshot',
          [this.keys.catalogSnapshot(serverId, version), this.keys.tools(serverId)],
          [version, ttlSeconds],
        ),
      ),
    );
    return replies.map((reply) => Number(reply) > 0);
  }

  /**
   * The tools of one catalog version of a server, as a run was shown them: the pinned snapshot,
   * or the live entry when it is still that version; `null` when neither holds it any more.
   */
  async readSnapshot(serverId: string, version: string): Promise<CatalogEntry | null> {
    const [snapshotText, entryText] = await this.getEach([
      this.keys.catalogSnapshot(serverId, version),
      this.keys.tools(serverId),
    ]);
    for (const text of [snapshotText, entryText]) {
      if (typeof text !== 'string') continue;
      const parsed = safeParseJson(text, catalogEntrySchema, `catalog snapshot ${serverId}@${version}`);
      if (parsed.success && parsed.data.version === version) return parsed.data;
    }
    return null;
  }

  /**
   * The registry reader's round trip: every definition (wire names are decided over all of them)
   * and, per server, its entry bytes, or only its version key when `known` holds a parse of it.
   * An entry whose version or status moved is read again at once; one that did not reads
   * `unchanged`. With `knownDefinitionsVersion` (the `P:servers.version` of definitions the reader
   * holds) the definitions hash is read only when the version moved, and then in the same second
   * round trip as the moved entries; `definitions` is `unchanged` otherwise. `definitionsVersion` is
   * the version read before the definitions, so definitions kept under it are never older than it.
   * The version keys and statuses of known entries go in one `MGET` (per slot on a cluster), not a
   * `GET` each. Replies keep their errors: one unreadable key must not take the others down, and a
   * key of the wrong type still reads as an error, as with `GET`.
   */
  async readForReader(
    serverIds: readonly string[],
    known: ReadonlyArray<KnownCatalogEntry | undefined>,
    knownDefinitionsVersion?: string,
  ): Promise<{
    definitions: PipelineReply | 'unchanged';
    definitionsVersion: string | undefined;
    replies: CatalogReaderReply[];
  }> {
    const versionKey = this.keys.serversVersion;
    const definitionsCommand: SlotCommand = {
      key: this.keys.servers,
      add: (pipeline) => pipeline.hgetall(this.keys.servers),
    };
    const commands: SlotCommand[] = [this.getCommand(versionKey)];
    if (knownDefinitionsVersion === undefined) commands.push(definitionsCommand);
    // Where each server's first replies come from: a command of its own (an entry never read, or
    // a status last seen missing), or a key of the one MGET of version keys and statuses. MGET
    // answers nil for a key of the wrong type where GET fails; a nil status where one was known
    // counts as moved and is read again with GET below, so an unreadable status is reported as
    // before, and a nil version key reads the entry again, as a failed GET of it did.
    const mgetKeys: string[] = [];
    const sources = serverIds.map((serverId, index) => {
      const knownEntry = known[index];
      let entry: number;
      if (knownEntry) {
        entry = -1 - mgetKeys.length;
        mgetKeys.push(this.keys.catalogVersion(serverId));
      } else {
        entry = commands.length;
        commands.push(this.getBufferCommand(this.keys.tools(serverId)));
      }
      let status: number;
      if (knownEntry && knownEntry.statusText !== null) {
        status = -1 - mgetKeys.length;
        mgetKeys.push(this.keys.status(serverId));
      } else {
        status = commands.length;
        commands.push(this.getCommand(this.keys.status(serverId)));
      }
      return { entry, status };
    });
    const mget = mgetBySlot(this.redis, mgetKeys);
    const mgetAt = commands.length;
    commands.push(...mget.commands);
    const results = await pipelineBySlot(this.redis, commands);
    const mgetReplies = mget.replies(results, mgetAt);
    const replyAt = (source: number): PipelineReply =>
      (source < 0 ? mgetReplies[-1 - source] : results[source]) ?? NONE;
    const [versionReadError, versionValue] = results[0] ?? NONE;
    const definitionsVersion = !versionReadError && typeof versionValue === 'string' ? versionValue : undefined;
    let definitions: PipelineReply | 'unchanged' =
      knownDefinitionsVersion === undefined ? (results[1] ?? NONE) : 'unchanged';
    if (definitions !== 'unchanged' && definitions[0]) return { definitions, definitionsVersion, replies: [] };
    const definitionsMoved = definitions === 'unchanged' && definitionsVersion !== knownDefinitionsVersion;
    const replies: CatalogReaderReply[] = sources.map((source) => ({
      entry: replyAt(source.entry),
      status: replyAt(source.status),
    }));
    const moved: number[] = [];
    replies.forEach((reply, index) => {
      const knownEntry = known[index];
      if (!knownEntry || reply.entry === 'unchanged') return;
      const [versionError, version] = reply.entry;
      const [statusError, statusText] = reply.status;
      const same =
        !versionError &&
        !statusError &&
        typeof version === 'string' &&
        version === knownEntry.digest &&
        (typeof statusText === 'string' ? statusText : null) === knownEntry.statusText;
      if (same) reply.entry = 'unchanged';
      else moved.push(index);
    });
    if (moved.length > 0 || definitionsMoved) {
      const again: SlotCommand[] = [];
      const positions = moved.map((index) => {
        const serverId = serverIds[index] as string;
        const entry = again.length;
        again.push(this.getBufferCommand(this.keys.tools(serverId)));
        // A status the MGET could not give (nil: missing or of the wrong type) is read with GET.
        const fromMget = (sources[index]?.status ?? 0) < 0;
        if (!fromMget || typeof replies[index]?.status[1] === 'string') return { index, entry, status: undefined };
        again.push(this.getCommand(this.keys.status(serverId)));
        return { index, entry, status: entry + 1 };
      });
      const definitionsAt = again.length;
      if (definitionsMoved) again.push(definitionsCommand);
      const entries = await pipelineBySlot(this.redis, again);
      for (const { index, entry, status } of positions) {
        const reply = replies[index];
        if (!reply) continue;
        reply.entry = entries[entry] ?? NONE;
        if (status !== undefined) reply.status = entries[status] ?? NONE;
      }
      if (definitionsMoved) definitions = entries[definitionsAt] ?? NONE;
    }
    return { definitions, definitionsVersion, replies };
  }

  /**
   * The entry and status as a writer finds them. An unreadable entry is logged and will be
   * replaced; an unreadable status is ignored.
   */
  async snapshot(serverId: string): Promise<CatalogSnapshot> {
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

  /**
   * Writes what `plan` decides from the current snapshot, compare-and-set: the stored definition
   * must still be `base.definitionText` (edits that keep its hash and enabled flag, such as a display
   * name, are followed) and the entry must still be the one the plan saw. A conflicting write plans
   * again from a new snapshot; a definition that changed, was disabled or removed ends it
   * (`superseded`).
   */
  async write(
    base: CatalogWriteBase,
    plan: (snapshot: CatalogSnapshot, definitionHash: string, now: number) => CatalogWritePlan,
  ): Promise<CatalogWriteOutcome> {
    const parsedBase = safeParseJson(base.definitionText, serverDefinitionSchema, `server definition ${base.serverId}`);
    if (!parsedBase.success) return { written: false, reason: 'superseded' };
    const same = { hash: definitionHash(parsedBase.data), enabled: parsedBase.data.enabled };
    let definitionText = base.definitionText;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
      const cluster = isClusterConnection(this.redis);
      if (cluster && ((await this.servers.getText(base.serverId)) ?? '') !== definitionText) {
        const next = await this.sameListDefinition(base.serverId, same.hash, same.enabled);
        if (next === undefined) return { written: false, reason: 'superseded' };
        definitionText = next;
        continue;
      }
      const snapshot = await this.snapshot(base.serverId);
      const decided = plan(snapshot, same.hash, Date.now());
      const result = await this.commit({ serverId: base.serverId, definitionText, snapshot, plan: decided });
      if (
        result === 1 &&
        cluster &&
        (await this.sameListDefinition(base.serverId, same.hash, same.enabled)) === undefined
      ) {
        // The definition changed or went away while this write ran. Readers already ignore an
        // entry of another definition hash, and the change asks for its own refresh; a removed
        // server's keys are cleared here so that nothing is left behind.
        await this.clearRemoved(base.serverId);
        return { written: false, reason: 'superseded' };
      }
      if (result === 1) return { written: true, plan: decided };
      if (result === 0) {
        const next = await this.sameListDefinition(base.serverId, same.hash, same.enabled);
        if (next === undefined) return { written: false, reason: 'superseded' };
        definitionText = next;
      }
    }
    throw new Error(`catalog write for ${base.serverId} kept conflicting`);
  }

  /**
   * The stored definition text when it still describes the same tool list (same hash, same
   * enabled flag), else `undefined`: the definition changed, was turned off or removed.
   */
  async sameListDefinition(serverId: string, hash: string, enabled: boolean): Promise<string | undefined> {
    const current = await this.servers.getText(serverId);
    if (current === null) return undefined;
    const parsed = safeParseJson(current, serverDefinitionSchema, `server definition ${serverId}`);
    if (!parsed.success || definitionHash(parsed.data) !== hash || parsed.data.enabled !== enabled) return undefined;
    return current;
  }

  /**
   * Deletes entry, version key, status and session generation of a server that no longer exists,
   * unless it was added again. Returns whether it cleared.
   */
  async clearRemoved(serverId: string): Promise<boolean> {
    const event = JSON.stringify(catalogUpdatedEventSchema.parse({ serverId, version: '' }));
    const keys = this.keys;
    if (isClusterConnection(this.redis)) {
      // Cross-slot on a cluster: a server added again right after the check loses its cache, and
      // the `put` that re-added it asks for a refresh anyway.
      if (await this.servers.has(serverId)) return false;
      const existed = await this.redis.del(keys.tools(serverId));
      await this.redis.del(keys.status(serverId), keys.serverSession(serverId), keys.catalogVersion(serverId));
      if (existed === 1) await this.redis.publish(keys.catalogUpdated, event);
      return true;
    }
    const scriptKeys = [
      keys.servers,
      keys.tools(serverId),
      keys.status(serverId),
      keys.catalogUpdated,
      keys.serverSession(serverId),
      keys.catalogVersion(serverId),
    ];
    return Number(await runStoreScript(this.redis, 'catalogClear', scriptKeys, [serverId, event])) === 1;
  }

  /**
   * The `tools.listChanged` support recorded for the server (`P:warmer.capabilities`): for this
   * definition hash only when one is given. A hint: a watcher owner reads it before it connects,
   * so servers that cannot notify are polled without a probe connection at every claim.
   */
  async readCapability(serverId: string, definitionHash?: string): Promise<ServerCapability | undefined> {
    const parsed = safeParseJson(await this.redis.hget(this.keys.warmerCapabilities, serverId), capabilitySchema);
    if (!parsed.success) return undefined;
    return definitionHash === undefined || parsed.data.definitionHash === definitionHash ? parsed.data : undefined;
  }

  /** Records what a successful read learned about the server's `tools.listChanged` support. */
  async writeCapability(serverId: string, capability: ServerCapability): Promise<void> {
    await this.redis.hset(this.keys.warmerCapabilities, serverId, JSON.stringify(capabilitySchema.parse(capability)));
  }

  /** Forgets the capability of a removed server. */
  async forgetCapability(serverId: string): Promise<void> {
    await this.redis.hdel(this.keys.warmerCapabilities, serverId);
  }

  private async commit(input: {
    serverId: string;
    definitionText: string;
    snapshot: CatalogSnapshot;
    plan: CatalogWritePlan;
  }): Promise<number> {
    const { serverId, plan, snapshot } = input;
    const keys = this.keys;
    const event = plan.publish ? JSON.stringify(catalogUpdatedEventSchema.parse(plan.publish)) : '';
    const status = JSON.stringify(plan.status);
    if (isClusterConnection(this.redis)) {
      const scriptKeys = [keys.tools(serverId), keys.status(serverId), keys.catalogVersion(serverId)];
      const args = [snapshot.entryText, plan.mode, plan.entryText, status, event, keys.catalogUpdated];
      return Number(await runStoreScript(this.redis, 'catalogCommitServer', scriptKeys, args));
    }
    const scriptKeys = [
      keys.servers,
      keys.tools(serverId),
      keys.status(serverId),
      keys.catalogUpdated,
      keys.catalogVersion(serverId),
    ];
    const args = [serverId, input.definitionText, snapshot.entryText, plan.mode, plan.entryText, status, event];
    return Number(await runStoreScript(this.redis, 'catalogCommit', scriptKeys, args));
  }

  /** The string values of `keys`; a key holding another Redis type reads as missing (a damaged key is not kept). */
  private async getEach(keys: readonly string[]): Promise<Array<string | null>> {
    const replies = await pipelineBySlot(
      this.redis,
      keys.map((key) => this.getCommand(key)),
    );
    return replies.map(([error, value]) => {
      if (error && !isWrongTypeError(error)) throw error;
      return typeof value === 'string' ? value : null;
    });
  }

  private getCommand(key: string): SlotCommand {
    return { key, add: (pipeline) => pipeline.get(key) };
  }

  private getBufferCommand(key: string): SlotCommand {
    return { key, add: (pipeline) => pipeline.getBuffer(key) };
  }
}
