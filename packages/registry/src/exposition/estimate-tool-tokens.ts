import { asSchema, type Tool } from 'ai';
import { countTokens } from 'gpt-tokenizer';
import type { ToolEntry } from '../registry/tool-entry.js';

const cache = new WeakMap<Tool, Map<string, number>>();

/** The JSON Schema of a tool's input, or `{}` when it is only available asynchronously. */
export function toolJsonSchema(tool: Tool): Record<string, unknown> {
  try {
    const schema = asSchema(tool.inputSchema).jsonSchema;
    if (schema && typeof (schema as PromiseLike<unknown>).then !== 'function') return schema as Record<string, unknown>;
  } catch {
    // A schema that cannot be converted costs what its name and description cost.
  }
  return {};
}

/**
 * Tokens a tool definition costs in a prompt: the o200k tokens of
 * `JSON.stringify({ name, description, schema })`. Provider framing differs a little; this is the
 * part that grows with the pool. Cached per tool object and name.
 */
export function estimateToolDefinitionTokens(name: string, tool: Tool): number {
  let byName = cache.get(tool);
  if (!byName) {
    byName = new Map();
    cache.set(tool, byName);
  }
  const known = byName.get(name);
  if (known !== undefined) return known;
  const tokens = countTokens(JSON.stringify({ name, description: tool.description, schema: toolJsonSchema(tool) }));
  byName.set(name, tokens);
  return tokens;
}

/** Tokens the definition of `entry` costs inline. See {@link estimateToolDefinitionTokens}. */
export function estimateToolTokens(entry: Pick<ToolEntry, 'name' | 'tool'>): number {
  return estimateToolDefinitionTokens(entry.name, entry.tool);
}
