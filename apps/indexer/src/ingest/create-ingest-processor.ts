import {
  NonRetryableError,
  ValidationError,
  kbIngestJobSchema,
  withBullmqErrors,
  type KbIngestResult,
  type Logger,
} from '@agentq/shared';
import { type RedisConnection } from '@agentq/store';
import {
  documentIdOf,
  ingestProgressSchema,
  ingestSource,
  type KbChunkEmbedding,
  type KnowledgeBaseStore,
} from '@agentq/kb';
import type { Job } from 'bullmq';

/** Options of {@link createIngestProcessor}. */
export interface IngestProcessorOptions {
  redis: RedisConnection;
  store: KnowledgeBaseStore;
  logger: Logger;
  /** `AGENTQ_KB_MAX_SOURCE_BYTES`. */
  maxSourceBytes: number;
  /** `AGENTQ_KB_FILE_ROOT`. */
  fileRoot?: string;
  allowPrivateNetwork: boolean;
  allowHosts?: readonly string[];
  /** Chunks per Redis write. @default 250 */
  batchSize?: number;
  /** The embedding model and its vector store: chunks are embedded at ingest. @default none */
  embedding?: KbChunkEmbedding;
}

/**
 * The `kb-ingest` processor: validates the payload (a bad one fails once, never retried), resumes
 * from the job's progress marker, and ingests. Progress is stored after every batch, so a job
 * taken over after its indexer died continues where it stood instead of starting over.
 */
export function createIngestProcessor(options: IngestProcessorOptions) {
  return async (job: Job, token: string | undefined, signal?: AbortSignal): Promise<KbIngestResult> =>
    await withBullmqErrors({ job, token }, async () => {
      const parsed = kbIngestJobSchema.safeParse(job.data);
      if (!parsed.success) throw ValidationError.fromZod('kb-ingest job', parsed.error);
      const data = parsed.data;
      const logger = options.logger.child({ jobId: job.id, kb: data.kb });
      const resume = ingestProgressSchema.safeParse(job.progress);
      return await ingestSource({
        redis: options.redis,
        store: options.store,
        job: data,
        read: {
          maxBytes: options.maxSourceBytes,
          ...(options.fileRoot ? { fileRoot: options.fileRoot } : {}),
          allowPrivateNetwork: options.allowPrivateNetwork,
          ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
        },
        ...(resume.success ? { resumeFrom: resume.data } : {}),
        onProgress: async (progress) => {
          await job.updateProgress(progress);
        },
        ...(options.batchSize ? { batchSize: options.batchSize } : {}),
        ...(options.embedding ? { embedding: options.embedding } : {}),
        ...(signal ? { signal } : {}),
        logger,
      });
    });
}

/**
 * After a job failed for good: drops the chunk set it left behind when the current version does
 * not use it, so a failed ingest leaves the last good version and nothing else.
 */
export async function cleanUpFailedIngest(options: {
  job: Job;
  store: KnowledgeBaseStore;
  logger: Logger;
}): Promise<void> {
  const data = kbIngestJobSchema.safeParse(options.job.data);
  const progress = ingestProgressSchema.safeParse(options.job.progress);
  if (!data.success || !progress.success) return;
  try {
    await options.store.dropUnusedChunkSet({
      kb: data.data.kb,
      documentId: documentIdOf(data.data.source),
      digest: progress.data.digest,
    });
  } catch (error) {
    // The KB may be gone (NOT_FOUND); anything else is only leftover data.
    if (!NonRetryableError.isInstance(error)) options.logger.warn({ error }, 'could not drop a failed ingest’s chunks');
  }
}
