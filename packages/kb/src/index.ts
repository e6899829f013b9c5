export { createKnowledgeBaseReader } from './search/create-knowledge-base-reader.js';
export type {
  CreateKnowledgeBaseReaderOptions,
  KbListing,
  KbSearchHit,
  KnowledgeBaseReader,
  KnowledgeBaseReaderStats,
  LoadedKnowledgeBaseReader,
} from './search/create-knowledge-base-reader.js';
export { openKnowledgeBaseReader } from './search/open-knowledge-base-reader.js';
export type { OpenedKnowledgeBaseReader } from './search/open-knowledge-base-reader.js';

// The store of knowledge base records lives in @agentq/store; it is offered here too, beside the
// ingest and search that use it.
export { KnowledgeBaseStore } from '@agentq/store';
export type { CurrentManifest, KnowledgeBaseStoreOptions } from '@agentq/store';

export { ingestProgressSchema, ingestSource } from './ingest/ingest-source.js';
export type { IngestProgress, IngestSourceOptions } from './ingest/ingest-source.js';
export { chunkIdOf, documentIdOf } from './ingest/document-id.js';
export { chunkEmbeddingDigest, chunkEmbeddingText } from './embedding/chunk-embedding.js';
export type { KbChunkEmbedding } from './embedding/chunk-embedding.js';

export { chunkSections } from './chunk/chunk-sections.js';
export type { ChunkOptions, DocumentSection, PlannedChunk } from './chunk/chunk-sections.js';
export { markdownSections } from './chunk/markdown-sections.js';
export type { ParsedDocument } from './sources/parse-document.js';
export { readSource, safeSourceUrl, shownDocumentSource } from './sources/read-source.js';
export type { ReadSourceOptions, SourceContent } from './sources/read-source.js';
export { expandFileSource } from './sources/expand-file-source.js';
export { resolveUnderRoot } from './sources/resolve-under-root.js';
export type { ExpandFileSourceOptions } from './sources/expand-file-source.js';
