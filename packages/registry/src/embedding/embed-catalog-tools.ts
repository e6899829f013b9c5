import type { CatalogTool, Embedder, Logger } from '@agentq/shared';
import { toolEmbeddingDigest, toolEmbeddingText } from './tool-embedding-text.js';
import { fillMissingVectors, type ToolVectorStore } from '@agentq/store';

/** Options of {@link embedCatalogTools}. */
export interface EmbedCatalogToolsOptions {
  embedder: Embedder;
  store: ToolVectorStore;
  tools: readonly CatalogTool[];
  signal?: AbortSignal;
}

/** What {@link embedCatalogTools} did. */
export interface EmbedCatalogToolsResult {
  /** Tools whose text was embedded now. */
  embedded: number;
  /** Tools whose vector was already stored. */
  reused: number;
}

/**
 * Makes sure every tool of a list has a stored vector: only texts without one are sent to the
 * model, so an unchanged tool is never embedded twice, whichever warmer reads it. Warmers call
 * this before they write the catalog entry, so a worker that sees the new version finds the
 * vectors already there.
 */
export async function embedCatalogTools(options: EmbedCatalogToolsOptions): Promise<EmbedCatalogToolsResult> {
  const textsByDigest = new Map<string, string>();
  for (const tool of options.tools) textsByDigest.set(toolEmbeddingDigest(tool), toolEmbeddingText(tool));
  return await fillMissingVectors({ ...options, textsByDigest });
}

/** A warmer-side hook: embeds a list, logging (never throwing) when the model fails. */
export function createCatalogToolEmbedding(options: {
  embedder: Embedder;
  store: ToolVectorStore;
  logger: Logger;
  /** Longest wait for the model per list. @default 30 000 */
  timeoutMs?: number;
}): (serverId: string, tools: readonly CatalogTool[]) => Promise<void> {
  return async (serverId, tools) => {
    try {
      const signal = AbortSignal.timeout(options.timeoutMs ?? 30_000);
      const result = await embedCatalogTools({ embedder: options.embedder, store: options.store, tools, signal });
      if (result.embedded > 0) options.logger.debug({ serverId, ...result }, 'embedded catalog tools');
    } catch (error) {
      // Vectors only improve search; a list must never wait on, or fail because of, the model.
      options.logger.warn(
        { serverId, error: error instanceof Error ? error.message : String(error) },
        'could not embed catalog tools; search stays lexical for them',
      );
    }
  };
}
