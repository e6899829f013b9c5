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

export { KnowledgeBaseStore } from './store/knowledge-base-store.js';
export type { CurrentManifest, KnowledgeBaseStoreOptions } from './store/knowledge-base-store.js';

export { ingestProgressSchema, ingestSource } from './ingest/ingest-source.js';
export type { IngestProgress, IngestSourceOptions } from './ingest/ingest-source.js';
export { chunkIdOf, documentIdOf } from './ingest/document-id.js';

export { chunkSections } from './chunk/chunk-sections.js';
export type { ChunkOptions, DocumentSection, PlannedChunk } from './chunk/chunk-sections.js';
export { markdownSections } from './chunk/markdown-sections.js';
export { parseDocument } from './sources/parse-document.js';
export type { ParsedDocument } from './sources/parse-document.js';
export { assertUnderRoot, kindOfFile, readSource, SUPPORTED_EXTENSIONS } from './sources/read-source.js';
export type { ReadSourceOptions, SourceContent } from './sources/read-source.js';
export { expandFileSource } from './sources/expand-file-source.js';
export { resolveUnderRoot } from './sources/resolve-under-root.js';
export type { ExpandFileSourceOptions } from './sources/expand-file-source.js';
