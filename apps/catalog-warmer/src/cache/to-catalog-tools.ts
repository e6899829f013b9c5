import { catalogToolSchema, objectJsonSchemaSchema, type CatalogTool } from '@agentq/shared';
import { DEFAULT_CATALOG_BUDGET, nestsDeeperThan, truncateText, type CatalogBudget } from './catalog-budget.js';

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
 *
 * The budget applies here, so no worker ever sees an entry over it: a description or title longer
 * than `maxDescriptionChars` is cut and ends with `… [truncated]`; a tool whose input schema nests
 * deeper than `maxSchemaDepth` is skipped (only that tool: one odd tool must not cost a server all
 * of its others), and an output schema nesting deeper is dropped from its tool.
 */
export function toCatalogTools(
  rawTools: readonly unknown[],
  budget: Pick<CatalogBudget, 'maxDescriptionChars' | 'maxSchemaDepth'> = DEFAULT_CATALOG_BUDGET,
): { tools: CatalogTool[]; skipped: SkippedTool[] } {
  const tools: CatalogTool[] = [];
  const skipped: SkippedTool[] = [];
  const seen = new Set<string>();
  rawTools.forEach((raw, index) => {
    const item = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
    const name = typeof item.name === 'string' && item.name.length > 0 ? item.name : `#${index}`;
    if (nestsDeeperThan(item.inputSchema, budget.maxSchemaDepth)) {
      skipped.push({ name, reason: `inputSchema nests deeper than AGENTQ_MAX_SCHEMA_DEPTH=${budget.maxSchemaDepth}` });
      return;
    }
    if (!objectJsonSchemaSchema.safeParse(item.inputSchema).success) {
      skipped.push({ name, reason: 'inputSchema is not a JSON-Schema object' });
      return;
    }
    if (seen.has(name)) {
      skipped.push({ name, reason: 'duplicate tool name' });
      return;
    }
    const outputTooDeep = nestsDeeperThan(item.outputSchema, budget.maxSchemaDepth);
    const outputSchema =
      !outputTooDeep && objectJsonSchemaSchema.safeParse(item.outputSchema).success ? item.outputSchema : undefined;
    if (item.outputSchema !== undefined && outputSchema === undefined) {
      skipped.push({
        name,
        reason: outputTooDeep
          ? `outputSchema nests deeper than AGENTQ_MAX_SCHEMA_DEPTH=${budget.maxSchemaDepth}; dropped from the tool`
          : 'outputSchema is not a JSON-Schema object; dropped from the tool',
      });
    }
    const text = (value: unknown) =>
      typeof value === 'string' ? truncateText(value, budget.maxDescriptionChars) : undefined;
    const parsed = catalogToolSchema.safeParse({
      name: item.name,
      title: text(item.title),
      description: text(item.description),
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
