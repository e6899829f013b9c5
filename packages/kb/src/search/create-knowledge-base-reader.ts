import {
  Bm25Index,
  dotProduct,
  fuseRankings,
  normalizeInPlace,
  silentLogger,
  type KbChunk,
  type KbDocument,
  type KbListing,
  type KbSearchHit,
  type KnowledgeBaseReader,
  type KbManifest,
  type Logger,
} from '@agentq/shared';
import { KnowledgeBaseStore, waitForRedis, type RedisConnection, type ToolVectorStore } from '@agentq/store';
import { chunkEmbeddingDigest } from '../embedding/chunk-embedding.js';
import { kbTerms } from '../text/kb-terms.js';
import { basename } from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { shownDocumentSource } from '../sources/read-source.js';

export type { KbListing, KbSearchHit, KnowledgeBaseReader };

/** Counters of a reader, for benchmarks and tests. */
export interface KnowledgeBaseReaderStats {
  /** BM25 indexes built (one per KB version loaded). */
  indexBuilds: number;
  /** Chunk sets read from Redis (a set unchanged between versions is reused, not read again). */
  chunkSetReads: number;
  /** Chunk vectors read from Redis (a vector of a loaded version is reused, not read again). */
  vectorReads: number;
}

/** A {@link KnowledgeBaseReader} with its counters. */
export interface LoadedKnowledgeBaseReader extends KnowledgeBaseReader {
  readonly stats: Readonly<KnowledgeBaseReaderStats>;
  /** The version of `kb` held in memory and searched now, or `undefined` when none is. */
  loadedVersion(kb: string): number | undefined;
  /**
   * Stops preloading: unsubscribes from `kb.updated` and starts no further background load. The
   * connections stay open (the reader borrows them). Idempotent.
   */
  close(): Promise<void>;
}

/** Options of {@link createKnowledgeBaseReader}. */
export interface CreateKnowledgeBaseReaderOptions {
  /** A connection the reader borrows; it never closes it. */
  redis: RedisConnection;
  /** Key prefix, hash-tagged under cluster mode. @default 'agentq' */
  keyPrefix?: string;
  logger?: Logger;
  /**
   * A connection the reader subscribes with (a subscribed connection can run nothing else); it
   * borrows it and never closes it. With one, the reader preloads: every KB that exists at start,
   * and each version announced on `kb.updated`, is loaded in the background, and a search answers
   * from the version already in memory instead of waiting for a newer one (a KB with nothing in
   * memory yet is waited for, joining the load in flight). Without one, a search loads a new
   * version itself, on its own path.
   */
  subscriber?: RedisConnection;
  /** Background loads running at once. @default 2 */
  preloadConcurrency?: number;
  /**
   * Hybrid search: the store of chunk vectors the indexer wrote (by text digest, for the model of
   * `embedQuery`) and the query embedder. A version's vectors are read when it loads (off the
   * search path with a `subscriber`), and a search fuses the vector and BM25 rankings of each KB
   * with reciprocal rank fusion, as tool search does. A query the model cannot embed is searched
   * lexically.
   * @default none (BM25 only)
   */
  embedding?: {
    vectors: ToolVectorStore;
    embedQuery: (query: string, signal: AbortSignal | undefined) => Promise<number[] | undefined>;
  };
}

interface LoadedVersion {
  version: number;
  manifest: KbManifest;
  chunks: KbChunk[];
  documents: Map<string, KbDocument>;
  index: Bm25Index;
  /** Each chunk's vector, by position, when there is one. */
  vectors: Array<Float32Array | undefined>;
  /** Vectors by text digest, reused by the next version's load. */
  vectorsByDigest: Map<string, Float32Array>;
}

const MAX_LOAD_ATTEMPTS = 20;
const MAX_LIMIT = 50;
/** Depth of each ranking fused in a hybrid search (at least the limit). */
const FUSION_DEPTH = 50;
/** Chunk vectors compared between two returns to the event loop (about a millisecond's work). */
const VECTOR_SCAN_SLICE = 2_048;
/** Vectors read from Redis per round trip when a version loads. */
const VECTOR_READ_BATCH = 1_000;

/**
 * Creates the cache-only reader of knowledge bases. Each call reads the version pointers of the
 * KBs it names (one `MGET`); a KB whose version is already in memory is searched there, with no
 * Redis read of chunks and no index build. A new version is loaded once (concurrent callers share
 * the load), reusing the parsed chunks of documents that did not change. Nothing is ever ingested
 * here: a KB that does not exist, or has no version yet, simply has no results.
 *
 * With a `subscriber`, loads move off the search path: versions are loaded in the background at
 * start and on `kb.updated`, and a search answers from the version in memory meanwhile (see
 * docs/knowledge-bases.md). Call `close` before closing the subscriber.
 */
export function createKnowledgeBaseReader(options: CreateKnowledgeBaseReaderOptions): LoadedKnowledgeBaseReader {
  const { redis } = options;
  const store = new KnowledgeBaseStore({ redis, prefix: options.keyPrefix ?? 'agentq' });
  const { keys } = store;
  const logger = (options.logger ?? silentLogger()).child({ component: 'kb-reader' });
  const stats: KnowledgeBaseReaderStats = { indexBuilds: 0, chunkSetReads: 0, vectorReads: 0 };
  const loaded = new Map<string, LoadedVersion>();
  // Parsed chunk sets by key, kept while some loaded version uses them.
  const chunkSets = new Map<string, KbChunk[]>();
  // The newest version announced per KB (by `kb.updated`, the start scan, or a search that saw a
  // newer pointer), and the one the background last tried, so a failing version is not retried.
  const announced = new Map<string, number>();
  const attempted = new Map<string, number>();
  // At most one load per KB at a time; a newer version waits for the older one (which gives up
  // before its index build once superseded).
  const inFlight = new Map<string, { version: number; promise: Promise<LoadedVersion | undefined> }>();
  const queue: string[] = [];
  const preloading = new Set<string>();
  const concurrency = Math.max(1, options.preloadConcurrency ?? 2);
  const { subscriber } = options;
  let closed = false;
  // Set once the first subscription is made: a later `ready` of the subscriber is a reconnect.
  let started = false;

  async function pointers(kbs: readonly string[]): Promise<Map<string, number>> {
    return await store.versions(kbs);
  }

  async function versionOf(kb: string, version: number): Promise<LoadedVersion | undefined> {
    const current = loaded.get(kb);
    if (current && current.version >= version) return current;
    const pending = inFlight.get(kb);
    if (pending && pending.version >= version) return await pending.promise;
    const promise = (pending?.promise ?? Promise.resolve(undefined))
      .catch(() => undefined)
      .then(() => {
        // The load waited for may have reached this version already.
        const now = loaded.get(kb);
        return now && now.version >= version ? now : load(kb, version);
      });
    const entry = { version, promise };
    inFlight.set(kb, entry);
    try {
      return await promise;
    } finally {
      if (inFlight.get(kb) === entry) inFlight.delete(kb);
    }
  }

  /** Records that `kb` is at `version` (0: removed) and queues a background load of it. */
  function announce(kb: string, version: number): void {
    if (closed) return;
    if (version === 0) {
      announced.delete(kb);
      attempted.delete(kb);
      loaded.delete(kb);
      forgetUnused();
      return;
    }
    if (version > (announced.get(kb) ?? 0)) announced.set(kb, version);
    if (wanted(kb) && !queue.includes(kb)) queue.push(kb);
    pump();
  }

  function wanted(kb: string): boolean {
    const version = announced.get(kb) ?? 0;
    return version > (attempted.get(kb) ?? 0) && version > (loaded.get(kb)?.version ?? 0);
  }

  function pump(): void {
    while (!closed && preloading.size < concurrency) {
      const index = queue.findIndex((kb) => !preloading.has(kb));
      if (index === -1) return;
      const [kb] = queue.splice(index, 1) as [string];
      if (!wanted(kb)) continue;
      const version = announced.get(kb) as number;
      attempted.set(kb, version);
      preloading.add(kb);
      let failed = false;
      versionOf(kb, version)
        .catch((error: unknown) => {
          // Redis failed: the next search or reconnect that sees this version queues it again.
          failed = true;
          attempted.delete(kb);
          logger.warn({ kb, version, error: (error as Error).message }, 'knowledge base preload failed');
        })
        .finally(() => {
          preloading.delete(kb);
          if (!failed && wanted(kb) && !queue.includes(kb)) queue.push(kb);
          pump();
        });
    }
  }

  async function startPreloading(connection: RedisConnection): Promise<void> {
    connection.on('message', onMessage);
    // After a reconnect, announcements sent meanwhile are lost: look at the pointers again.
    connection.on('ready', onReady);
    try {
      await store.subscribeToUpdates(connection);
      started = true;
      await scan();
    } catch (error) {
      logger.warn({ error: (error as Error).message }, 'knowledge base preload did not start');
    }
  }

  async function scan(): Promise<void> {
    // The subscriber may be up before the connection the reads go through (it connects on its
    // own); wait for that one, bounded, rather than fail the scan.
    await waitForRedis(redis, 10_000);
    if (closed) return;
    const names = await store.names();
    for (const [kb, version] of await pointers(names)) announce(kb, version);
  }

  function onReady(): void {
    // The first ready is the start, which startPreloading scans after subscribing; later ones are
    // reconnects, after which announcements sent meanwhile are lost.
    if (closed || !started) return;
    scan().catch((error: unknown) => {
      logger.warn({ error: (error as Error).message }, 'knowledge base rescan failed');
    });
  }

  function onMessage(channel: string, message: string): void {
    const event = store.parseUpdate(channel, message);
    if (!event) return;
    if (!event.success) {
      logger.warn({ error: event.error.message }, 'ignored a malformed kb.updated event');
      return;
    }
    announce(event.data.kb, event.data.version);
  }

  /** What a search reads for `kb` at pointer `version`, without waiting for a preload. */
  async function searchable(kb: string, version: number): Promise<LoadedVersion | undefined> {
    if (!subscriber) return await versionOf(kb, version);
    const current = loaded.get(kb);
    if (current && current.version >= version) return current;
    if (current) {
      // Newer than what is in memory (an announcement may have been missed, or a load failed):
      // queue it in the background and answer from the loaded version meanwhile.
      announce(kb, version);
      return current;
    }
    // Nothing of this KB is in memory yet (a worker just started, or a KB just created): there is
    // no older version to answer from, and answering without the KB would be a silent wrong answer,
    // so the search joins the load (the one a preload started, if any; versionOf never starts two).
    return await versionOf(kb, version);
  }

  async function load(kb: string, requested: number): Promise<LoadedVersion | undefined> {
    let version = requested;
    for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt += 1) {
      version = Math.max(version, announced.get(kb) ?? 0);
      const result = await tryLoad(kb, version);
      if (result) return result;
      // The version was replaced while it loaded: follow the pointer.
      const now = (await pointers([kb])).get(kb);
      if (now === undefined) return undefined;
      version = now;
    }
    logger.warn({ kb }, 'knowledge base kept changing while it loaded');
    return loaded.get(kb);
  }

  async function tryLoad(kb: string, version: number): Promise<LoadedVersion | undefined> {
    const read = await store.lookupManifest(kb, version);
    if (read.status === 'missing') return undefined;
    if (read.status === 'corrupt') {
      logger.warn({ kb, version, error: read.error.message }, 'corrupt knowledge base manifest');
      return undefined;
    }
    const { manifest } = read;
    const setKeys = manifest.documents.map((document) => keys.kbChunks(kb, document.id, document.digest));
    const missing = setKeys.filter((key) => !chunkSets.has(key));
    const fetched = new Map<string, KbChunk[]>();
    const sets = await store.readChunkSets(missing);
    for (const [index, key] of missing.entries()) {
      const set = sets[index];
      const document = manifest.documents[setKeys.indexOf(key)];
      // Gone or short: the version was replaced and its chunks deleted meanwhile.
      if (!set || set.fieldCount !== document?.chunks) return undefined;
      fetched.set(key, set.chunks);
      stats.chunkSetReads += 1;
    }
    // Superseded while it read: skip the index build, the caller moves on to the newer version
    // (keeping what was read, which that version mostly shares, until the next load prunes it).
    if ((announced.get(kb) ?? 0) > version) {
      for (const [key, chunks] of fetched) chunkSets.set(key, chunks);
      return undefined;
    }
    const all: KbChunk[] = [];
    for (const key of setKeys) all.push(...(fetched.get(key) ?? chunkSets.get(key) ?? []));
    const { vectors, vectorsByDigest } = await vectorsOf(kb, all);
    if ((announced.get(kb) ?? 0) > version) {
      for (const [key, chunks] of fetched) chunkSets.set(key, chunks);
      return undefined;
    }
    const result: LoadedVersion = {
      version,
      manifest,
      chunks: all,
      documents: new Map(manifest.documents.map((document) => [document.id, document])),
      index: new Bm25Index(all),
      vectors,
      vectorsByDigest,
    };
    stats.indexBuilds += 1;
    const previous = loaded.get(kb);
    if (!previous || previous.version < version) {
      loaded.set(kb, result);
      for (const [key, chunks] of fetched) chunkSets.set(key, chunks);
      forgetUnused();
    }
    return result;
  }

  /**
   * The vectors of a version's chunks: those of the version in memory are reused, the others read.
   * Reading renews their lifetime, so the vectors of a KB that is searched never expire.
   */
  async function vectorsOf(
    kb: string,
    chunks: readonly KbChunk[],
  ): Promise<Pick<LoadedVersion, 'vectors' | 'vectorsByDigest'>> {
    const vectorsByDigest = new Map<string, Float32Array>();
    if (!options.embedding) return { vectors: [], vectorsByDigest };
    const digests = chunks.map(chunkEmbeddingDigest);
    const known = loaded.get(kb)?.vectorsByDigest;
    const unknown = [...new Set(digests)].filter((digest) => {
      const vector = known?.get(digest);
      if (vector) vectorsByDigest.set(digest, vector);
      return !vector;
    });
    for (let start = 0; start < unknown.length; start += VECTOR_READ_BATCH) {
      const batch = unknown.slice(start, start + VECTOR_READ_BATCH);
      const absent = new Set(await options.embedding.vectors.missing(batch));
      const read = await options.embedding.vectors.read(batch.filter((digest) => !absent.has(digest)));
      // Unit length once here, so a search ranks by dot product alone.
      for (const [digest, vector] of read) vectorsByDigest.set(digest, normalizeInPlace(vector));
      stats.vectorReads += read.size;
    }
    return { vectors: digests.map((digest) => vectorsByDigest.get(digest)), vectorsByDigest };
  }

  function forgetUnused(): void {
    const used = new Set<string>();
    for (const [kb, version] of loaded) {
      for (const document of version.manifest.documents) used.add(keys.kbChunks(kb, document.id, document.digest));
    }
    for (const key of chunkSets.keys()) if (!used.has(key)) chunkSets.delete(key);
  }

  if (subscriber) void startPreloading(subscriber);

  return {
    stats,
    loadedVersion: (kb) => loaded.get(kb)?.version,
    async close() {
      if (closed || !subscriber) {
        closed = true;
        return;
      }
      closed = true;
      queue.length = 0;
      subscriber.off('message', onMessage);
      subscriber.off('ready', onReady);
      await store.unsubscribeFromUpdates(subscriber).catch(() => undefined);
    },
    async search(searchOptions) {
      const limit = Math.min(MAX_LIMIT, Math.max(1, Math.floor(searchOptions.limit)));
      const terms = kbTerms(searchOptions.query, 'query');
      if (terms.length === 0) return [];
      const versions = await pointers(searchOptions.kbs);
      const states: Array<{ kb: string; state: LoadedVersion }> = [];
      for (const [kb, version] of versions) {
        searchOptions.signal?.throwIfAborted();
        const state = await searchable(kb, version);
        if (state) states.push({ kb, state });
      }
      const queryVector = states.some(({ state }) => state.vectorsByDigest.size > 0)
        ? await embedQuery(searchOptions.query, searchOptions.signal)
        : undefined;
      const hits: KbSearchHit[] = [];
      for (const { kb, state } of states) {
        for (const match of queryVector
          ? await hybridMatches({ state, terms, queryVector, limit, signal: searchOptions.signal })
          : state.index.search(terms, limit)) {
          const chunk = state.chunks[match.position] as KbChunk;
          const document = state.documents.get(chunk.documentId);
          if (!document) continue;
          hits.push({
            kb,
            version: state.version,
            documentId: document.id,
            source: shownDocumentSource(document.source),
            location: locationOf(document, chunk),
            text: chunk.text,
            // Fused scores are small (about 1/60): rounded finer than BM25's.
            score: queryVector ? Math.round(match.score * 1e6) / 1e6 : Math.round(match.score * 1_000) / 1_000,
          });
        }
      }
      return hits.sort((left, right) => right.score - left.score).slice(0, limit);
    },
    async list(listOptions) {
      const unique = [...new Set(listOptions.kbs)];
      if (unique.length === 0) return [];
      const [definitions, versions] = await Promise.all([store.definitions(unique), pointers(unique)]);
      const out: KbListing[] = [];
      for (const kb of unique) {
        const definition = definitions.get(kb);
        if (!definition) continue;
        const version = versions.get(kb) ?? 0;
        const manifest = version === 0 ? undefined : await manifestOf(kb, version);
        const listing: KbListing = {
          kb,
          version: manifest?.version ?? 0,
          documents: (manifest?.documents ?? []).map((document) => ({
            id: document.id,
            source: shownDocumentSource(document.source),
            ...(document.title ? { title: document.title } : {}),
            chunks: document.chunks,
          })),
        };
        if (definition.description) listing.description = definition.description;
        out.push(listing);
      }
      return out;
    },
  };

  async function embedQuery(query: string, signal: AbortSignal | undefined): Promise<number[] | undefined> {
    try {
      return await options.embedding?.embedQuery(query, signal);
    } catch (error) {
      signal?.throwIfAborted();
      // The model is down or slow: a lexical answer is better than none.
      logger.warn({ error: (error as Error).message }, 'could not embed a kb_search query; searching lexically');
      return undefined;
    }
  }

  async function manifestOf(kb: string, version: number): Promise<KbManifest | undefined> {
    const current = loaded.get(kb);
    if (current?.version === version) return current.manifest;
    const read = await store.lookupManifest(kb, version);
    return read.status === 'ok' ? read.manifest : undefined;
  }
}

/**
 * The BM25 and the vector ranking of a version's chunks, each `FUSION_DEPTH` deep, fused by
 * reciprocal rank fusion; the best `limit`. The cosine pass over every chunk vector gives the event
 * loop back every `VECTOR_SCAN_SLICE` vectors: at 50 000 chunks of 768 dimensions it is tens of
 * milliseconds of CPU, which other runs on the worker (and BullMQ's lock renewals) must not wait on.
 */
async function hybridMatches(options: {
  state: LoadedVersion;
  terms: readonly string[];
  queryVector: readonly number[];
  limit: number;
  signal: AbortSignal | undefined;
}): Promise<Array<{ position: number; score: number }>> {
  const { state, terms, queryVector, limit } = options;
  const depth = Math.max(limit, FUSION_DEPTH);
  const lexical = state.index.search(terms, depth).map((match) => match.position);
  const query = normalizeInPlace(Float32Array.from(queryVector));
  // The best `depth` by cosine, kept sorted best first; most chunks never beat the last one.
  const best: Array<{ position: number; score: number }> = [];
  const { vectors } = state;
  for (let position = 0; position < vectors.length; position += 1) {
    if (position > 0 && position % VECTOR_SCAN_SLICE === 0) {
      await yieldToEventLoop();
      options.signal?.throwIfAborted();
    }
    const vector = vectors[position];
    if (!vector || vector.length !== query.length) continue;
    const score = dotProduct(vector, query);
    if (score <= 0 || (best.length === depth && score <= (best[depth - 1] as { score: number }).score)) continue;
    let at = best.length;
    while (at > 0 && (best[at - 1] as { score: number }).score < score) at -= 1;
    best.splice(at, 0, { position, score });
    if (best.length > depth) best.pop();
  }
  const vector = best.map((match) => match.position);
  return fuseRankings([lexical, vector])
    .slice(0, limit)
    .map(({ key, score }) => ({ position: key, score }));
}

function locationOf(document: KbDocument, chunk: KbChunk): KbSearchHit['location'] {
  const location: KbSearchHit['location'] = {};
  if (document.source.startsWith('/')) location.file = document.label ?? basename(document.source);
  if (chunk.heading !== undefined) location.heading = chunk.heading;
  if (chunk.page !== undefined) location.page = chunk.page;
  return location;
}
