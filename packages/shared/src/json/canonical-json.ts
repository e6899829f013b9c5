import { createHash } from 'node:crypto';

/**
 * JSON with object keys sorted at every depth, so that equal values always give equal text
 * whatever order their keys were written in. `undefined` members are dropped, as JSON does.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) out[key] = sortKeys(member);
    }
    return out;
  }
  return value;
}

/** Hex SHA-256 of the canonical JSON of `value`, cut to `length` characters. */
export function digestOf(value: unknown, length = 64): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex').slice(0, length);
}
