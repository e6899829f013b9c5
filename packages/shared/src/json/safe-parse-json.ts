import type { z } from 'zod';
import { ValidationError } from '../errors/validation-error.js';

/** Result of {@link safeParseJson}. */
export type SafeParseJsonResult<T> = { success: true; data: T } | { success: false; error: ValidationError };

/**
 * Parses text from outside the process (Redis, HTTP, files) through a schema. Broken JSON and
 * schema failures both come back as a `ValidationError` naming the problem; it never throws.
 */
export function safeParseJson<S extends z.ZodType>(
  text: string | null | undefined,
  schema: S,
  what = 'JSON value',
): SafeParseJsonResult<z.output<S>> {
  if (text === null || text === undefined) {
    return {
      success: false,
      error: new ValidationError({ what, issues: [{ field: '', message: 'value is missing' }] }),
    };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return {
      success: false,
      error: new ValidationError({
        what,
        code: 'INVALID_JSON',
        issues: [{ field: '', message: `not valid JSON (${reason})` }],
      }),
    };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { success: true, data: parsed.data };
  return { success: false, error: ValidationError.fromZod(what, parsed.error) };
}

/** Parses `value` with `schema`, throwing a `ValidationError` that names every bad field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw ValidationError.fromZod(what, parsed.error);
}
