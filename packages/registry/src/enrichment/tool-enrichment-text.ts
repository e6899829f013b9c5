import { digestOf, type CatalogTool } from '@agentq/shared';

/** Characters of a description shown to the enrichment model. */
const MAX_DESCRIPTION_CHARS = 2_000;
/** Characters of an input schema (as JSON) shown to the enrichment model. */
const MAX_SCHEMA_CHARS = 2_000;

/**
 * What the enrichment model is shown of a tool: its name, title, the head of its description and
 * the head of its input schema. The server is left out, so the same tool offered by two servers
 * shares one enrichment.
 */
export function toolEnrichmentText(tool: CatalogTool): string {
  return [
    `Name: ${tool.name}`,
    tool.title ? `Title: ${tool.title}` : '',
    tool.description ? `Description: ${tool.description.slice(0, MAX_DESCRIPTION_CHARS)}` : '',
    `Input schema: ${JSON.stringify(tool.inputSchema).slice(0, MAX_SCHEMA_CHARS)}`,
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** Digest of a tool's enrichment text: the key of its examples, per model. */
export function toolEnrichmentDigest(tool: CatalogTool): string {
  return digestOf(toolEnrichmentText(tool), 32);
}
