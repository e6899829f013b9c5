import { jsonSchema, type JSONSchema7, type Schema } from 'ai';
import { z } from 'zod';
import { withoutRegexKeywords } from './without-regex-keywords.js';

/**
 * Wraps a cached JSON Schema for the AI SDK, with real validation: `jsonSchema()` alone accepts
 * anything, and both the SDK's own input check and `tool_invoke` rely on this validator. The zod
 * validator is built on first use, since most tools of a large pool are never called. A schema
 * zod cannot convert falls back to the structural check below rather than rejecting every call.
 * The server's regular expressions are left to the server (see {@link withoutRegexKeywords}): run
 * here, one backtracking pattern could hold the worker's event loop for minutes.
 */
export function toolInputSchema(schema: Record<string, unknown>): Schema<unknown> {
  let validator: z.ZodType | null | undefined;
  return jsonSchema<unknown>(schema as JSONSchema7, {
    validate(value) {
      if (validator === undefined) {
        try {
          validator = z.fromJSONSchema(withoutRegexKeywords(schema) as Parameters<typeof z.fromJSONSchema>[0]);
        } catch {
          validator = null;
        }
      }
      if (validator === null) {
        return isPlainObject(value)
          ? { success: true, value }
          : { success: false, error: new Error('expected an object of parameters') };
      }
      const parsed = validator.safeParse(value);
      if (parsed.success) return { success: true, value: parsed.data };
      const issues = parsed.error.issues.map(
        (issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`,
      );
      return { success: false, error: new Error(`invalid parameters: ${issues.join('; ')}`) };
    },
  });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
