import type { Tool } from 'ai';
import { toolJsonSchema } from '../exposition/estimate-tool-tokens.js';

type JsonSchema = Record<string, unknown>;

/** Deepest nesting of parameters a signature spells out. */
export const MAX_SIGNATURE_DEPTH = 5;

function asSchema(value: unknown): JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonSchema) : {};
}

/** A JSDoc type for a JSON Schema: `string`, `number[]`, `"a"|"b"`, `string|null`, `object`. */
function typeOf(schema: JsonSchema): string {
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join('|');
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  const union = (schema.anyOf ?? schema.oneOf) as unknown;
  if (Array.isArray(union)) return [...new Set(union.map((member) => typeOf(asSchema(member))))].join('|');
  const type = schema.type;
  if (Array.isArray(type)) return type.map((member) => typeOf({ ...schema, type: member })).join('|');
  switch (type) {
    case 'integer':
      return 'number';
    case 'array': {
      const item = typeOf(asSchema(schema.items));
      return item.includes('|') ? `Array<${item}>` : `${item}[]`;
    }
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
    case 'object':
      return type;
    default:
      return schema.properties ? 'object' : '*';
  }
}

function oneLine(text: unknown): string {
  return typeof text === 'string' ? text.replace(/\s+/g, ' ').trim() : '';
}

function paramLines(schema: JsonSchema, path: string, depth: number): string[] {
  if (depth > MAX_SIGNATURE_DEPTH) return [];
  const properties = asSchema(schema.properties);
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const lines: string[] = [];
  for (const [key, value] of Object.entries(properties)) {
    const property = asSchema(value);
    const name = `${path}.${key}`;
    const isRequired = required.has(key);
    const parts = [oneLine(property.description)];
    if (property.default !== undefined) parts.push(`default ${JSON.stringify(property.default)}`);
    if (isRequired) parts.push('(required)');
    const text = parts.filter((part) => part !== '').join(' ');
    lines.push(` * @param {${typeOf(property)}} ${isRequired ? name : `[${name}]`}${text ? ` - ${text}` : ''}`);
    if (property.properties) lines.push(...paramLines(property, name, depth + 1));
    const items = asSchema(property.items);
    if (property.type === 'array' && items.properties) lines.push(...paramLines(items, `${name}[]`, depth + 1));
  }
  return lines;
}

/**
 * A JSDoc stub of a tool, enough for a model to call it right: the description, one `@param` per
 * parameter (`[params.x]` when optional, nested objects spelled out to depth 5), then
 * `function <name>(params) {}`.
 */
export function renderToolSignature(name: string, tool: Tool): string {
  const schema = toolJsonSchema(tool);
  const description = (tool.description ?? '').trim();
  const lines = ['/**'];
  for (const line of description.split('\n')) if (line.trim() !== '') lines.push(` * ${line.trim()}`);
  lines.push(' * @param {object} params');
  lines.push(...paramLines(schema, 'params', 1));
  lines.push(' */');
  lines.push(`function ${name}(params) {}`);
  return lines.join('\n');
}
