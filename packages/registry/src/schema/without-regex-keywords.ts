/**
 * A copy of a JSON Schema for local validation, without the keywords that would run a server's
 * regular expressions: `pattern`, and `patternProperties` (with the `additionalProperties` beside
 * it, whose meaning depends on those patterns).
 *
 * A tool's schema comes from its MCP server, and JavaScript's regular expressions backtrack: a
 * pattern such as `^(a|a)+$` against a few dozen characters of model output would hold the event
 * loop for minutes, and every run of the worker with it. Patterns stay in the schema the model is
 * shown, and the server, which owns them, still checks the call it receives; the local validator
 * checks everything else. Walks only the keywords that hold subschemas, so a property that happens
 * to be named `pattern` is kept.
 */
export function withoutRegexKeywords(schema: unknown): unknown {
  return strip(schema, 0);
}

/** Keywords whose value is one subschema. */
const ONE = [
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
] as const;
/** Keywords whose value is a list of subschemas. */
const LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'] as const;
/** Keywords whose value maps names to subschemas (draft-7 `dependencies` may also map to name lists). */
const MAP = ['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'] as const;

/** Deeper than any real tool schema; a deeper one is cut off rather than walked. */
const MAX_DEPTH = 64;

function strip(schema: unknown, depth: number): unknown {
  if (!isRecord(schema)) return schema;
  if (depth > MAX_DEPTH) return {};
  const out: Record<string, unknown> = { ...schema };
  if (typeof out.pattern === 'string') delete out.pattern;
  if ('patternProperties' in out) {
    delete out.patternProperties;
    delete out.additionalProperties;
  }
  for (const key of ONE) {
    if (Object.hasOwn(out, key) && isRecord(out[key])) out[key] = strip(out[key], depth + 1);
  }
  for (const key of LIST) {
    const value = out[key];
    if (Object.hasOwn(out, key) && Array.isArray(value)) out[key] = value.map((one) => strip(one, depth + 1));
  }
  for (const key of MAP) {
    const value = out[key];
    if (!Object.hasOwn(out, key) || !isRecord(value)) continue;
    const mapped: Record<string, unknown> = {};
    for (const name of Object.keys(value)) {
      Object.defineProperty(mapped, name, {
        value: strip(value[name], depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    out[key] = mapped;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
