import {
  AgentqError,
  NonRetryableError,
  kbChunkSchema,
  kbDefinitionSchema,
  kbManifestSchema,
  kbNameSchema,
  kbUpdatedEventSchema,
  parseWith,
  safeParseJson,
  type KbChunk,
  type KbDefinition,
  type KbDocument,
  type KbManifest,
  type KbUpdatedEvent,
  type SafeParseJsonResult,
} from '@agentq/shared';
import { keyNames, type KeyNames } from '../keys.js';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { runStoreScript } from '../scripts/store-scripts.js';

/** Options of {@link KnowledgeBaseStore}. */
export interface KnowledgeBaseStoreOptions {
  redis: RedisConnection;
  /** Key prefix, hash-tagged under cluster mode. */
  prefix: string;
}

/** One version's manifest as read: gone, readable, or corrupt (with the reason). */
export type ManifestRead =
  { status: 'missing' } | { status: 'ok'; manifest: KbManifest } | { status: 'corrupt'; error: Error };

/** One chunk set as read: how many fields it holds, and its readable chunks in order. */
export interface ChunkSetRead {
  /** Fields in the hash (0 when it is gone); fewer than the manifest says means it is being replaced. */
  fieldCount: number;
  /** The chunks that parse, by ordinal. */
  chunks: KbChunk[];
}

/** The current version of a KB with the pointer value it was read under. */
export interface CurrentManifest {
  manifest: KbManifest;
  /** The raw pointer value (`null` before the first version), for the compare-and-set switch. */
  pointer: string | null;
}

const MAX_SWITCH_ATTEMPTS = 50;

/**
 * Knowledge base definitions and versions in Redis. A version is a manifest (the documents and
 * the chunk set of each) written aside under its own key, then made current by switching the
 * version pointer with a compare-and-set; the previous manifest and any chunk set the new version
 * no longer names are deleted after the switch. Readers only ever follow the pointer, so they see
 * either the old or the new version, whole.
 */
export class KnowledgeBaseStore {
  readonly keys: KeyNames;
  private readonly redis: RedisConnection;

  constructor(options: KnowledgeBaseStoreOptions) {
    this.redis = options.redis;
    this.keys = keyNames(options.prefix);
  }

  /** Creates a KB; `CONFLICT` when the name is taken. */
  async create(input: { name: string; description?: string }): Promise<KbDefinition> {
    const definition = parseWith(kbDefinitionSchema, { ...input, createdAt: Date.now() }, 'knowledge base');
    const created = await this.redis.hsetnx(this.keys.kbs, definition.name, JSON.stringify(definition));
    if (created === 0) {
      throw new AgentqError({
        code: 'CONFLICT',
        field: 'name',
        message: `knowledge base "${definition.name}" already exists`,
      });
    }
    return definition;
  }

  /** One KB's definition; `NOT_FOUND` when there is none. */
  async get(name: string): Promise<KbDefinition> {
    const parsedName = parseWith(kbNameSchema, name, 'knowledge base name');
    const text = await this.redis.hget(this.keys.kbs, parsedName);
    if (text === null) throw notFound(parsedName);
    const parsed = safeParseJson(text, kbDefinitionSchema, `knowledge base ${parsedName}`);
    if (!parsed.success) throw parsed.error;
    return parsed.data;
  }

  /** Every KB definition, by name. Corrupt entries are skipped. */
  async list(): Promise<KbDefinition[]> {
    const all = await this.redis.hgetall(this.keys.kbs);
    const out: KbDefinition[] = [];
    for (const text of Object.values(all)) {
      const parsed = safeParseJson(text, kbDefinitionSchema, 'knowledge base');
      if (parsed.success) out.push(parsed.data);
    }
    return out.sort((left, right) => left.name.localeCompare(right.name));
  }

  /** The current manifest (version 0 and no documents before the first ingest). */
  async current(kb: string): Promise<CurrentManifest> {
    for (let attempt = 0; attempt < MAX_SWITCH_ATTEMPTS; attempt += 1) {
      const pointer = await this.redis.get(this.keys.kbVersion(kb));
      if (pointer === null) return { pointer, manifest: emptyManifest(kb) };
      const manifest = await this.readManifest(kb, Number(pointer));
      // The version was replaced (and its manifest deleted) between the two reads: read again.
      if (manifest) return { pointer, manifest };
    }
    throw new AgentqError({ code: 'CONFLICT', message: `knowledge base "${kb}" is changing too fast to read` });
  }

  /** One version's manifest, or undefined when it is gone; a corrupt one throws. */
  async readManifest(kb: string, version: number): Promise<KbManifest | undefined> {
    const read = await this.lookupManifest(kb, version);
    if (read.status === 'corrupt') throw read.error;
    return read.status === 'ok' ? read.manifest : undefined;
  }

  /** One version's manifest, telling a gone one from a corrupt one (for readers that skip either). */
  async lookupManifest(kb: string, version: number): Promise<ManifestRead> {
    const text = await this.redis.get(this.keys.kbManifest(kb, version));
    if (text === null) return { status: 'missing' };
    const parsed = safeParseJson(text, kbManifestSchema, `manifest of ${kb} v${version}`);
    return parsed.success ? { status: 'ok', manifest: parsed.data } : { status: 'corrupt', error: parsed.error };
  }

  /** The name of every KB. */
  async names(): Promise<string[]> {
    return await this.redis.hkeys(this.keys.kbs);
  }

  /** The readable definitions of `kbs`, by name, in one `HMGET`; unknown or corrupt ones are absent. */
  async definitions(kbs: readonly string[]): Promise<Map<string, KbDefinition>> {
    const out = new Map<string, KbDefinition>();
    if (kbs.length === 0) return out;
    const texts = await this.redis.hmget(this.keys.kbs, ...kbs);
    kbs.forEach((kb, index) => {
      const parsed = safeParseJson(texts[index], kbDefinitionSchema, `knowledge base ${kb}`);
      if (parsed.success) out.set(kb, parsed.data);
    });
    return out;
  }

  /**
   * The current versions of `kbs` in one `MGET`, by name; a KB with no version yet (or none at
   * all) is absent.
   */
  async versions(kbs: readonly string[]): Promise<Map<string, number>> {
    const unique = [...new Set(kbs)];
    const out = new Map<string, number>();
    if (unique.length === 0) return out;
    const values = await this.redis.mget(...unique.map((kb) => this.keys.kbVersion(kb)));
    unique.forEach((kb, index) => {
      const value = values[index];
      if (value !== null && value !== undefined && /^\d+$/.test(value)) out.set(kb, Number(value));
    });
    return out;
  }

  /**
   * Reads chunk sets (by `kbChunks` key) in one pipeline. A set that cannot be read counts as gone
   * (no fields): the caller compares `fieldCount` with its manifest and reads again.
   */
  async readChunkSets(keys: readonly string[]): Promise<ChunkSetRead[]> {
    if (keys.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const key of keys) pipeline.hgetall(key);
    const replies = (await pipeline.exec()) ?? [];
    return keys.map((_key, index) => {
      const [error, value] = replies[index] ?? [new Error('no reply'), null];
      const fields = (error ? {} : value) as Record<string, string>;
      const chunks: KbChunk[] = [];
      for (const text of Object.values(fields)) {
        const parsed = safeParseJson(text, kbChunkSchema, 'knowledge base chunk');
        if (parsed.success) chunks.push(parsed.data);
      }
      chunks.sort((left, right) => left.ordinal - right.ordinal);
      return { fieldCount: Object.keys(fields).length, chunks };
    });
  }

  /** Writes chunks into a chunk set, by chunk id (idempotent: a chunk written again is the same). */
  async writeChunks(key: string, chunks: readonly KbChunk[]): Promise<void> {
    if (chunks.length === 0) return;
    const fields: string[] = [];
    for (const chunk of chunks) fields.push(chunk.id, JSON.stringify(chunk));
    await this.redis.hset(key, ...fields);
  }

  /** The chunk ids a chunk set holds. */
  async chunkIds(key: string): Promise<string[]> {
    return await this.redis.hkeys(key);
  }

  /** Deletes a chunk set's content (it stays tracked, see {@link trackChunkSet}). */
  async clearChunkSet(key: string): Promise<void> {
    await this.redis.del(key);
  }

  /** Subscribes `subscriber` to `kb.updated`, the channel of version switches. */
  async subscribeToUpdates(subscriber: RedisConnection): Promise<void> {
    await subscriber.subscribe(this.keys.kbUpdated);
  }

  /** Undoes {@link subscribeToUpdates}. */
  async unsubscribeFromUpdates(subscriber: RedisConnection): Promise<void> {
    await subscriber.unsubscribe(this.keys.kbUpdated);
  }

  /**
   * A message received on a subscribed connection, parsed when it came on `kb.updated`
   * (`undefined` for any other channel).
   */
  parseUpdate(channel: string, message: string): SafeParseJsonResult<KbUpdatedEvent> | undefined {
    if (channel !== this.keys.kbUpdated) return undefined;
    return safeParseJson(message, kbUpdatedEventSchema, 'kb.updated event');
  }

  /**
   * Makes a new version from the current one: `change` gets the current documents and returns the
   * next ones (or `undefined` for no change). Retries on a concurrent switch, so two ingests into
   * one KB both land. Returns the new version, or the current one when nothing changed.
   */
  async commit(options: {
    kb: string;
    change: (documents: readonly KbDocument[]) => KbDocument[] | undefined;
  }): Promise<{ version: number; changed: boolean }> {
    const { kb } = options;
    for (let attempt = 0; attempt < MAX_SWITCH_ATTEMPTS; attempt += 1) {
      const { pointer, manifest } = await this.current(kb);
      const documents = options.change(manifest.documents);
      if (documents === undefined) return { version: manifest.version, changed: false };
      const version = await this.redis.incr(this.keys.kbSerial(kb));
      const next: KbManifest = { kb, version, documents, updatedAt: Date.now() };
      const nextKey = this.keys.kbManifest(kb, version);
      await this.redis.set(nextKey, JSON.stringify(next));
      const outcome = await runStoreScript(
        this.redis,
        'kbSwitchVersion',
        [this.keys.kbs, this.keys.kbVersion(kb)],
        [kb, pointer ?? '', String(version)],
      );
      if (outcome === 'ok') {
        await this.afterSwitch({ kb, previous: manifest, pointer, next });
        return { version, changed: true };
      }
      await this.redis.del(nextKey);
      if (outcome === 'gone') throw notFound(kb);
    }
    throw new AgentqError({ code: 'CONFLICT', message: `knowledge base "${kb}" is changing too fast to update` });
  }

  /** Records a chunk set before it is written, so that removing the KB always finds it. */
  async trackChunkSet(kb: string, key: string): Promise<void> {
    await this.redis.sadd(this.keys.kbChunkSets(kb), key);
  }

  /**
   * Deletes a chunk set that the current version does not name (what a failed ingest left).
   * Returns whether it deleted it.
   */
  async dropUnusedChunkSet(options: { kb: string; documentId: string; digest: string }): Promise<boolean> {
    const { manifest } = await this.current(options.kb);
    const used = manifest.documents.some(
      (document) => document.id === options.documentId && document.digest === options.digest,
    );
    if (used) return false;
    const key = this.keys.kbChunks(options.kb, options.documentId, options.digest);
    await this.redis.multi().del(key).srem(this.keys.kbChunkSets(options.kb), key).exec();
    return true;
  }

  /** Removes one document from the KB as a new version; `NOT_FOUND` when it is not there. */
  async removeDocument(options: { kb: string; documentId: string }): Promise<{ version: number }> {
    let found = false;
    const { version } = await this.commit({
      kb: options.kb,
      change: (documents) => {
        found = documents.some((document) => document.id === options.documentId);
        return found ? documents.filter((document) => document.id !== options.documentId) : undefined;
      },
    });
    if (!found) {
      throw new AgentqError({
        code: 'NOT_FOUND',
        field: 'documentId',
        message: `knowledge base "${options.kb}" has no document "${options.documentId}"`,
      });
    }
    return { version };
  }

  /**
   * Removes a KB: its definition first (so a running ingest's switch fails as `gone`), then its
   * pointer, manifests and chunks. The version counter stays, so a re-created KB never reuses a
   * version number a reader may still hold in memory.
   */
  async remove(kb: string): Promise<void> {
    await this.get(kb);
    await this.redis.hdel(this.keys.kbs, kb);
    const pointer = await this.redis.get(this.keys.kbVersion(kb));
    const chunkSets = await this.redis.smembers(this.keys.kbChunkSets(kb));
    const doomed = [this.keys.kbVersion(kb), this.keys.kbChunkSets(kb), ...chunkSets];
    if (pointer !== null) doomed.push(this.keys.kbManifest(kb, Number(pointer)));
    for (let start = 0; start < doomed.length; start += 500) await this.redis.del(...doomed.slice(start, start + 500));
    await this.redis.publish(this.keys.kbUpdated, JSON.stringify({ kb, version: 0 }));
  }

  private async afterSwitch(options: {
    kb: string;
    previous: KbManifest;
    pointer: string | null;
    next: KbManifest;
  }): Promise<void> {
    const { kb, previous, next } = options;
    const kept = new Set(next.documents.map((document) => this.keys.kbChunks(kb, document.id, document.digest)));
    const unused = previous.documents
      .map((document) => this.keys.kbChunks(kb, document.id, document.digest))
      .filter((key) => !kept.has(key));
    const multi = this.redis.multi();
    if (options.pointer !== null) multi.del(this.keys.kbManifest(kb, Number(options.pointer)));
    if (unused.length > 0) multi.del(...unused).srem(this.keys.kbChunkSets(kb), ...unused);
    multi.publish(this.keys.kbUpdated, JSON.stringify({ kb, version: next.version }));
    await multi.exec();
  }
}

function emptyManifest(kb: string): KbManifest {
  return { kb, version: 0, documents: [], updatedAt: 0 };
}

function notFound(kb: string): NonRetryableError {
  return new NonRetryableError({ code: 'NOT_FOUND', field: 'kb', message: `no knowledge base "${kb}"` });
}
