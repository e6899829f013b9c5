// Description enrichment of the evaluation tools through the configured model, for
// `tune-dev.ts --enrich`: each tool text is sent once per model, and the answers are kept in a
// local JSON file (by model and text digest), so a second run, or a run with other weights, costs
// no model call.
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { enrichCatalogTools, toolEnrichmentDigest, type ToolEnricher, type ToolRegistry } from '@agentq/registry';
import { digestOf, toolId } from '@agentq/shared';
import type { ToolEnrichmentStore } from '@agentq/store';
import { z } from 'zod';
import type { EvalServer } from './tool-search-eval.js';

const cacheSchema = z.record(z.string(), z.array(z.string()));

/** A {@link ToolEnrichmentStore} over a JSON file, written after every answer. */
async function fileStore(path: string): Promise<ToolEnrichmentStore> {
  const entries = existsSync(path) ? cacheSchema.parse(JSON.parse(await readFile(path, 'utf8'))) : {};
  let saving = Promise.resolve();
  return {
    missing: async (digests) => digests.filter((digest) => entries[digest] === undefined),
    async write(examples) {
      for (const [digest, list] of examples) entries[digest] = [...list];
      saving = saving.then(() => writeFile(path, JSON.stringify(entries)));
      await saving;
    },
    read: async (digests) =>
      new Map(digests.flatMap((digest) => (entries[digest] ? [[digest, entries[digest]] as const] : []))),
  };
}

/** The cache file of `modelId` under `directory`. */
export function enrichmentCachePath(directory: string, modelId: string): string {
  return `${directory}/enrichments-${digestOf(modelId, 16)}.json`;
}

/**
 * Makes sure every tool of `servers` has examples in the cache file (asking `enricher` for those
 * that do not), then sets them on `registry`'s search index by tool id.
 */
export async function enrichEvalTools(options: {
  servers: readonly EvalServer[];
  registry: ToolRegistry;
  enricher: ToolEnricher;
  cachePath: string;
}): Promise<{ calls: number; failed: number; inputTokens: number; outputTokens: number; tools: number }> {
  const store = await fileStore(options.cachePath);
  const tools = options.servers.flatMap((server) => server.tools);
  const result = await enrichCatalogTools({ enricher: options.enricher, store, tools, concurrency: 4 });
  const stored = await store.read(tools.map(toolEnrichmentDigest));
  for (const server of options.servers) {
    for (const tool of server.tools) {
      options.registry.searchIndex?.setExamples(
        toolId(String(server.definition.id), tool.name),
        stored.get(toolEnrichmentDigest(tool)),
      );
    }
  }
  return { ...result, tools: tools.length };
}
