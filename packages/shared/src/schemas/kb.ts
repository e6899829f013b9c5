import { z } from 'zod';

/**
 * Name of a knowledge base: lower-case letters, digits, `-` and `_`, 1 to 63 characters, starting
 * with a letter or digit. The pattern has no nested quantifier, so it matches in linear time.
 */
export const kbNameSchema = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    'must be 1-63 lower-case letters, digits, "-" or "_", starting with a letter or digit',
  );

/** A knowledge base as created by `agentq kb create` or `POST /v1/kbs`. */
export const kbDefinitionSchema = z.object({
  name: kbNameSchema,
  description: z.string().max(2_000).optional(),
  createdAt: z.number().int().nonnegative(),
});

/**
 * A knowledge base URL source: http or https, without credentials. `fetch` would not send a
 * `user:password@`, and the ingest job, its errors and the document would all hold it.
 */
export const kbSourceUrlSchema = z
  .url({ protocol: /^https?$/, message: 'must be an http or https URL' })
  .max(4_096)
  // Runs after a failed URL check too (zod keeps going), so an unparsable value passes here.
  .refine((url) => {
    if (!URL.canParse(url)) return true;
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  }, 'must not carry credentials (user:password@)');

/**
 * Where a document comes from. A `file` path is absolute and is read by the indexer from its own
 * file system; a `url` ({@link kbSourceUrlSchema}) is fetched through the shared fetch guard.
 */
export const kbSourceSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('file'),
    path: z
      .string()
      .min(1)
      .max(4_096)
      .refine((path) => path.startsWith('/'), 'must be an absolute path'),
    /** How results name the file, e.g. its path relative to the folder that was added. */
    label: z.string().min(1).max(1_024).optional(),
  }),
  z.object({
    type: z.literal('url'),
    url: kbSourceUrlSchema,
  }),
]);

/**
 * Who asked for an ingest. `local` is an operator's own producer (the CLI, `agentq dev`), trusted
 * to name any file the indexer can read; `api` came through the HTTP API, and the indexer reads its
 * files only under `AGENTQ_KB_FILE_ROOT`.
 */
export const kbSourceOriginSchema = z.enum(['local', 'api']);

/** Payload of a `kb-ingest` job: read one source and make it part of a new version of the KB. */
export const kbIngestJobSchema = z.object({
  kb: kbNameSchema,
  source: kbSourceSchema,
  origin: kbSourceOriginSchema,
  requestedAt: z.number().int().nonnegative(),
});

/** Kinds of documents the indexer understands. */
export const kbDocumentKindSchema = z.enum(['markdown', 'text', 'html', 'pdf']);

/** One document of a KB version. Its chunks live under `keyNames.kbChunks(kb, id, digest)`. */
export const kbDocumentSchema = z.object({
  id: z.string().regex(/^[a-f0-9]{16}$/),
  source: z.string(),
  label: z.string().optional(),
  title: z.string().optional(),
  kind: kbDocumentKindSchema,
  /** SHA-256 of the content that was read: re-adding the same content is a no-op. */
  digest: z.string().regex(/^[a-f0-9]{64}$/),
  chunks: z.number().int().nonnegative(),
  addedAt: z.number().int().nonnegative(),
});

/** The documents of one KB version. Written aside, then made current by the version pointer. */
export const kbManifestSchema = z.object({
  kb: kbNameSchema,
  version: z.number().int().nonnegative(),
  documents: z.array(kbDocumentSchema),
  updatedAt: z.number().int().nonnegative(),
});

/** Published on `keyNames.kbUpdated` after a version switch. */
export const kbUpdatedEventSchema = z.object({
  kb: kbNameSchema,
  version: z.number().int().nonnegative(),
});

/** One stored chunk: its text, where it is, and its lexical terms (stem → count). */
export const kbChunkSchema = z.object({
  id: z.string(),
  documentId: z.string(),
  ordinal: z.number().int().nonnegative(),
  text: z.string(),
  heading: z.string().optional(),
  page: z.number().int().positive().optional(),
  /**
   * Stemmed terms with their counts in the chunk, the forward half of the lexical index, encoded
   * as `term:count` pairs separated by spaces (terms never hold either character). A flat string
   * keeps loading 50 000 chunks cheap: no per-term object to validate.
   */
  terms: z.string().max(1_000_000),
  /** Number of terms in the chunk (BM25 document length). */
  length: z.number().int().nonnegative(),
});

export type KbDefinition = z.infer<typeof kbDefinitionSchema>;
export type KbSource = z.infer<typeof kbSourceSchema>;
export type KbSourceOrigin = z.infer<typeof kbSourceOriginSchema>;
export type KbIngestJob = z.infer<typeof kbIngestJobSchema>;
export type KbDocumentKind = z.infer<typeof kbDocumentKindSchema>;
export type KbDocument = z.infer<typeof kbDocumentSchema>;
export type KbManifest = z.infer<typeof kbManifestSchema>;
export type KbUpdatedEvent = z.infer<typeof kbUpdatedEventSchema>;
export type KbChunk = z.infer<typeof kbChunkSchema>;

/** Return value of a `kb-ingest` job; `/metrics` counts chunks and outcomes from it. */
export const kbIngestResultSchema = z.object({
  status: z.enum(['updated', 'unchanged']),
  kb: kbNameSchema,
  version: z.number().int().nonnegative(),
  documentId: z.string(),
  /** Chunks written by this job (0 when unchanged). */
  chunks: z.number().int().nonnegative(),
});

export type KbIngestResult = z.infer<typeof kbIngestResultSchema>;
