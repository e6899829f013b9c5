import { catalogToolSchema, objectJsonSchemaSchema, type CatalogTool } from '@agentq/shared';

/** A tool left out of the cache, and why. */
export interface SkippedTool {
  name: string;
  reason: string;
}

/**
 * Turns raw `tools/list` items into cache entries. Only the fields a run needs are kept (icons,
 * `_meta` and the like are dropped). A tool whose input schema is not a JSON-Schema object is
 * skipped and reported, and its siblings are kept; an output schema that is not an object is
 * dropped from its tool. A repeated name keeps its first occurrence. The result is sorted by name,
 * so a server that lists the same tools in another order does not look changed.
 */
export function toCatalogTools(rawTools: readonly unknown[]): { tools: CatalogTool[]; skipped: SkippedTool[] } {
  const tools: CatalogTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  rawTools.forEach((raw, index) => {
    const item = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const name = typeof item.name === 'string' && item.name.length > 0 ? item.name : `#${index}`;
    if (!objectJsonSchemaSchema.safeParse(item.inputSchema).success) {
      skipped.push({ name, reason: 'inputSchema is not a JSON-Schema object' });
      return;
    }
    if (seen.has(name)) {
      skipped.push({ name, reason: 'duplicate tool name' });
      return;
    }
    const outputSchema = objectJsonSchemaSchema.safeParse(item.outputSchema).success ? item.outputSchema : undefined;
    if (item.outputSchema !== undefined && outputSchema === undefined) {
      skipped.push({ name, reason: 'outputSchema is not a JSON-Schema object; dropped from the tool' });
    }
    const parsed = catalogToolSchema.safeParse({
      name: item.name,
      title: typeof item.title === 'string' ? item.title : undefined,
      description: typeof item.description === 'string' ? item.description : undefined,
      inputSchema: item.inputSchema,
      outputSchema,
      annotations:
        typeof item.annotations === 'object' && item.annotations !== null && !Array.isArray(item.annotations)
          ? item.annotations
          : undefined,
    });
    if (!parsed.success) {
      skipped.push({ name, reason: parsed.error.issues[0]?.message ?? 'invalid tool' });
      return;
    }
    seen.add(name);
    tools.push(parsed.data);
  });
  tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { tools, skipped };
}
