import { digestOf, type CatalogTool } from '@agentq/shared';

/** Characters of a description that go into a tool's embedding text. */
const MAX_DESCRIPTION_CHARS = 1_500;

/**
 * What is embedded for a tool: its name, title, the head of its description and its parameter
 * names. The server is left out, so the same tool offered by two servers (or two ids of one
 * server) shares one vector; the lexical ranking already weighs the server's name.
 */
export function toolEmbeddingText(tool: CatalogTool): string {
  const properties = Object.keys((tool.inputSchema.properties ?? {}) as Record<string, unknown>);
  return [
    tool.name,
    tool.title ?? '',
    (tool.description ?? '').slice(0, MAX_DESCRIPTION_CHARS),
    properties.length > 0 ? `Parameters: ${properties.join(', ')}` : '',
  ]
    .filter((part) => part !== '')
    .join('\n');
}

/** Digest of a tool's embedding text: the key of its vector, per model. */
export function toolEmbeddingDigest(tool: CatalogTool): string {
  return digestOf(toolEmbeddingText(tool), 32);
}
