import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import {
  AgentqError,
  kbIngestJobOptions,
  kbIngestJobSchema,
  kbIngestResultSchema,
  kbNameSchema,
  kbSourceOriginSchema,
  kbSourceUrlSchema,
  parseWith,
  ValidationError,
  type KbDefinition,
  type KbDocument,
  type KbIngestResult,
  type KbSource,
  type KbSourceOrigin,
} from '@agentq/shared';
import { expandFileSource, resolveUnderRoot, ingestProgressSchema, safeSourceUrl, type KbSearchHit } from '@agentq/kb';
import { z } from 'zod';
import type { ClientContext } from '../client-context.js';

/** Name of the jobs `addKbSource` adds to `kb-ingest`. */
export const KB_INGEST_JOB_NAME = 'ingest';

/** A knowledge base with its current version. */
export interface KbInfo extends KbDefinition {
  version: number;
  documents: KbDocument[];
  /** Chunks over all documents of the current version. */
  chunks: number;
}

/** What to add: a local file or folder (`path`), or a `url`. */
export const kbSourceInputSchema = z.union([
  z.strictObject({ path: z.string().min(1).max(4_096) }),
  z.strictObject({ url: kbSourceUrlSchema }),
]);

/** See {@link kbSourceInputSchema}. */
export type KbSourceInput = z.infer<typeof kbSourceInputSchema>;

/** Most sources one {@link addKbSources} call takes. */
export const MAX_KB_SOURCES_PER_CALL = 100;

/** Several sources, added all or nothing (see {@link addKbSources}). */
export const kbSourcesInputSchema = z.strictObject({
  sources: z.array(kbSourceInputSchema).min(1).max(MAX_KB_SOURCES_PER_CALL),
});

/** Options of {@link addKbSource}. */
export interface AddKbSourceOptions {
  /**
   * `local` (the default) for the operator's own producer: any path this machine can read. `api`
   * for paths that came from a caller: they must resolve under the client's `kbFileRoot`.
   * @default 'local'
   */
  origin?: KbSourceOrigin;
}

/** The ingest jobs one `addKbSource` or `addKbSources` call enqueued. */
export interface AddedKbSource {
  kb: string;
  /**
   * One job per file or URL, in the order of the sources. A URL is named without its credentials
   * or query (`safeSourceUrl`), here and wherever it is shown.
   */
  jobs: Array<{ jobId: string; source: string }>;
  /** Each source as given (a URL in its safe form), with the number of jobs it became (a folder becomes one per file). */
  sources: Array<{ source: string; queued: number }>;
}

/** One ingest job's state. */
export interface KbIngestInfo {
  jobId: string;
  kb: string;
  source: string;
  state: 'waiting' | 'active' | 'delayed' | 'completed' | 'failed' | 'unknown';
  progress?: { written: number; total: number };
  result?: KbIngestResult;
  failedReason?: string;
}

/** Creates a knowledge base. `CONFLICT` when the name is taken. */
export async function createKb(
  context: ClientContext,
  input: { name: string; description?: string },
): Promise<KbDefinition> {
  return await context.kbs.create(input);
}

/** Every knowledge base with its current version. */
export async function listKbs(context: ClientContext): Promise<KbInfo[]> {
  const definitions = await context.kbs.list();
  return await Promise.all(definitions.map((definition) => withVersion(context, definition)));
}

/** One knowledge base with its documents. `NOT_FOUND` when unknown. */
export async function getKb(context: ClientContext, name: string): Promise<KbInfo> {
  return await withVersion(context, await context.kbs.get(name));
}

async function withVersion(context: ClientContext, definition: KbDefinition): Promise<KbInfo> {
  const { manifest } = await context.kbs.current(definition.name);
  return {
    ...definition,
    version: manifest.version,
    documents: manifest.documents,
    chunks: manifest.documents.reduce((sum, document) => sum + document.chunks, 0),
  };
}

/** Removes a knowledge base with all its versions and chunks. `NOT_FOUND` when unknown. */
export async function removeKb(context: ClientContext, name: string): Promise<void> {
  parseWith(kbNameSchema, name, 'knowledge base name');
  await context.kbs.remove(name);
}

/** Removes one document as a new version. `NOT_FOUND` for an unknown KB or document. */
export async function removeKbDocument(
  context: ClientContext,
  input: { kb: string; documentId: string },
): Promise<{ version: number }> {
  await context.kbs.get(input.kb);
  return await context.kbs.removeDocument(input);
}

/**
 * Enqueues one `kb-ingest` job per source: a URL, a file, or every supported file of a folder
 * (expanded here, on the producer's machine). Nothing is read now; the indexer reads and ingests.
 * A path from an `api` caller must resolve under `kbFileRoot` (`FORBIDDEN` otherwise, and without
 * a root), so that a remote caller cannot make the indexer read an arbitrary file.
 */
export async function addKbSource(
  context: ClientContext,
  input: { kb: string; source: unknown; options?: AddKbSourceOptions },
): Promise<AddedKbSource> {
  parseWith(kbNameSchema, input.kb, 'knowledge base name');
  parseWith(kbSourceOriginSchema, input.options?.origin ?? 'local', 'origin');
  // Parsed here too, so that a bad lone source is named `url` or `path`, not `sources.0.url`.
  const source = parseWith(kbSourceInputSchema, input.source, 'knowledge base source');
  return await addKbSources(context, { kb: input.kb, sources: [source], options: input.options });
}

/**
 * Adds several sources all or nothing: every source is checked first (well-formed, the file or
 * folder exists and its files are readable, under `kbFileRoot` for the `api` origin), and only
 * then are all their jobs enqueued in one `addBulk`. One bad source queues nothing: a lone source
 * fails with its own error; in a batch, the error lists every bad source (`sources.<index>`) and
 * carries the code of the first.
 */
export async function addKbSources(
  context: ClientContext,
  input: { kb: string; sources: readonly unknown[]; options?: AddKbSourceOptions },
): Promise<AddedKbSource> {
  const kb = parseWith(kbNameSchema, input.kb, 'knowledge base name');
  const origin = parseWith(kbSourceOriginSchema, input.options?.origin ?? 'local', 'origin');
  const { sources: inputs } = parseWith(kbSourcesInputSchema, { sources: input.sources }, 'knowledge base sources');
  await context.kbs.get(kb);
  const expanded: KbSource[][] = [];
  const failures: Array<{ index: number; error: unknown }> = [];
  for (const [index, source] of inputs.entries()) {
    try {
      expanded.push(await resolveKbSource(context, source, origin));
    } catch (error) {
      failures.push({ index, error });
    }
  }
  const first = failures[0];
  if (first) {
    if (inputs.length === 1) throw first.error;
    throw new ValidationError({
      what: `knowledge base sources (${failures.length} of ${inputs.length} refused; nothing was queued)`,
      code: AgentqError.isInstance(first.error) ? first.error.code : 'VALIDATION',
      issues: failures.map(({ index, error }) => ({
        field: `sources.${index}`,
        message: (error as Error).message,
      })),
    });
  }
  const all = expanded.flat();
  const requestedAt = Date.now();
  const jobs = await context.queues.kbIngest.addBulk(
    all.map((each) => ({
      name: KB_INGEST_JOB_NAME,
      data: kbIngestJobSchema.parse({ kb, source: each, origin, requestedAt }),
      opts: kbIngestJobOptions,
    })),
  );
  return {
    kb,
    jobs: jobs.map((job, index) => {
      const each = all[index] as KbSource;
      return { jobId: job.id ?? '', source: each.type === 'url' ? safeSourceUrl(each.url) : each.path };
    }),
    sources: inputs.map((source, index) => ({
      source: 'url' in source ? safeSourceUrl(source.url) : source.path,
      queued: expanded[index]?.length ?? 0,
    })),
  };
}

/** The ingest sources of one input source, checked; throws what is wrong with it. */
async function resolveKbSource(
  context: ClientContext,
  source: KbSourceInput,
  origin: KbSourceOrigin,
): Promise<KbSource[]> {
  if ('url' in source) return [{ type: 'url', url: source.url }];
  // Outside the root, the answer is the same whether or not the path exists.
  if (origin === 'api') await resolveUnderRoot(source.path, context.kbFileRoot);
  const files = await expandFileSource({ path: source.path });
  // The indexer reads them later; one it cannot read would fail there, after the others went in.
  for (const file of files) {
    try {
      await access(file.path, constants.R_OK);
    } catch {
      throw new AgentqError({ code: 'FORBIDDEN', field: 'source.path', message: `${file.path}: not readable` });
    }
  }
  return files;
}

/** The state of one ingest job. `NOT_FOUND` when the job is unknown (or already removed). */
export async function getKbIngest(context: ClientContext, jobId: string): Promise<KbIngestInfo> {
  // State first, then the job: read the other way round, an ingest finishing in between would look
  // completed with the stale (empty) return value of its active snapshot.
  const state = await context.queues.kbIngest.getJobState(jobId);
  const job = await context.queues.kbIngest.getJob(jobId);
  if (!job) throw new AgentqError({ code: 'NOT_FOUND', field: 'jobId', message: `no ingest job "${jobId}"` });
  const data = kbIngestJobSchema.safeParse(job.data);
  const info: KbIngestInfo = {
    jobId,
    kb: data.success ? data.data.kb : 'unknown',
    source: data.success
      ? data.data.source.type === 'url'
        ? safeSourceUrl(data.data.source.url)
        : data.data.source.path
      : 'unknown',
    state:
      (['waiting', 'active', 'delayed', 'completed', 'failed'] as const).find((known) => known === state) ??
      (state === 'prioritized' || state === 'waiting-children' ? 'waiting' : 'unknown'),
  };
  const progress = ingestProgressSchema.safeParse(job.progress);
  if (progress.success) info.progress = { written: progress.data.written, total: progress.data.total };
  const result = kbIngestResultSchema.safeParse(job.returnvalue);
  if (result.success) info.result = result.data;
  if (job.failedReason) info.failedReason = job.failedReason;
  return info;
}

/** Searches knowledge bases the way `kb_search` does (from Redis only). */
export async function searchKbs(
  context: ClientContext,
  input: { query: string; kbs: readonly string[]; limit?: number },
): Promise<KbSearchHit[]> {
  const kbs = input.kbs.map((kb) => parseWith(kbNameSchema, kb, 'knowledge base name'));
  const query = parseWith(z.string().trim().min(1, 'must not be empty').max(2_000), input.query, 'query');
  for (const kb of kbs) await context.kbs.get(kb);
  return await context.kbReader().search({ query, kbs, limit: input.limit ?? 5 });
}
