import { asSchema, type Tool } from 'ai';
import { countTokens } from 'gpt-tokenizer';
import type { ToolEntry } from '../registry/tool-entry.js';

// Keyed by the input schema object, not the tool: a run wraps registry tools in new objects
// (approval policy) that share the schema, and counting 2 000 definitions on every run would cost
// more than the run's own setup.
const cache = new WeakMap<object, Map<string, { description: string | undefined; tokens: number }>>();
// The last estimate per tool object, checked first: a run start asks about the same registry tool
// objects, by the same names, every time, and one lookup answers that.
const byTool = new WeakMap<object, { name: string; description: string | undefined; tokens: number }>();

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
 * part that grows with the pool. Cached per input schema object, name and description.
 */
export function estimateToolDefinitionTokens(name: string, tool: Tool): number {
  const last = byTool.get(tool);
  if (last !== undefined && last.name === name && last.description === tool.description) return last.tokens;
  const tokens = estimateBySchema(name, tool);
  byTool.set(tool, { name, description: tool.description, tokens });
  return tokens;
}

function estimateBySchema(name: string, tool: Tool): number {
  const schemaKey = typeof tool.inputSchema === 'object' && tool.inputSchema !== null ? tool.inputSchema : tool;
  let known = cache.get(schemaKey);
  if (!known) {
    known = new Map();
    cache.set(schemaKey, known);
  }
  const cached = known.get(name);
  if (cached !== undefined && cached.description === tool.description) return cached.tokens;
  const tokens = countTokens(JSON.stringify({ name, description: tool.description, schema: toolJsonSchema(tool) }));
  known.set(name, { description: tool.description, tokens });
  return tokens;
}

/** Tokens the definition of `entry` costs inline. See {@link estimateToolDefinitionTokens}. */
export function estimateToolTokens(entry: Pick<ToolEntry, 'name' | 'tool'>): number {
  return estimateToolDefinitionTokens(entry.name, entry.tool);
}
