import {
  AgentqError,
  NonRetryableError,
  kbDefinitionSchema,
  kbManifestSchema,
  kbNameSchema,
  parseWith,
  safeParseJson,
  type KbDefinition,
  type KbDocument,
  type KbManifest,
} from '@agentq/shared';
import { keyNames, type KeyNames, type RedisConnection } from '@agentq/store';

/** Options of {@link KnowledgeBaseStore}. */
export interface KnowledgeBaseStoreOptions {
  redis: RedisConnection;
  /** Key prefix, hash-tagged under cluster mode. */
  prefix: string;
}

/** The current version of a KB with the pointer value it was read under. */
export interface CurrentManifest {
  manifest: KbManifest;
  /** The raw pointer value (`null` before the first version), for the compare-and-set switch. */
  pointer: string | null;
}

// Switches the version pointer only if nobody switched it since the caller read it, and only while
// the KB exists. The new manifest was written aside before; this is the one atomic step.
const SWITCH_VERSION = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then return 'gone' end
local current = redis.call('GET', KEYS[2])
if (current or '') ~= ARGV[2] then return 'conflict' end
redis.call('SET', KEYS[2], ARGV[3])
return 'ok'
`;

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

  /** One version's manifest, or undefined when it is gone. */
  async readManifest(kb: string, version: number): Promise<KbManifest | undefined> {
    const text = await this.redis.get(this.keys.kbManifest(kb, version));
    if (text === null) return undefined;
    const parsed = safeParseJson(text, kbManifestSchema, `manifest of ${kb} v${version}`);
    if (!parsed.success) throw parsed.error;
    return parsed.data;
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
      const outcome = await this.redis.eval(
        SWITCH_VERSION,
        2,
        this.keys.kbs,
        this.keys.kbVersion(kb),
        kb,
        pointer ?? '',
        String(version),
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
