/** One chunk `kb_search` found. */
export interface KbSearchHit {
  kb: string;
  /** The KB version the chunk was read from. */
  version: number;
  documentId: string;
  /** Where the document came from: a file path or a URL. */
  source: string;
  /** Where in the document: file and heading, or page. */
  location: { file?: string; heading?: string; page?: number };
  text: string;
  score: number;
}

/** One knowledge base as `kb_list` shows it. */
export interface KbListing {
  kb: string;
  version: number;
  description?: string;
  documents: Array<{ id: string; source: string; title?: string; chunks: number }>;
}

/**
 * Reads knowledge bases for `kb_search` and `kb_list`. The agent worker is handed one (the
 * knowledge-base package implements it over its Redis index); the builtin tools only know this shape,
 * so neither package imports the other. Reading is cache-only: an
 * implementation must never ingest on a run's path.
 */
export interface KnowledgeBaseReader {
  /** The best chunks for `query` across `kbs`, best first, at most `limit`. */
  search(options: {
    query: string;
    kbs: readonly string[];
    limit: number;
    signal?: AbortSignal;
  }): Promise<KbSearchHit[]>;
  /** The knowledge bases among `kbs` that exist, with their documents. */
  list(options: { kbs: readonly string[] }): Promise<KbListing[]>;
}
