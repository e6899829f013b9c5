import { asSchema, type FlexibleSchema } from 'ai';

/** Outcome of {@link validateToolInput}. */
export type ToolInputValidation = { success: true; value: unknown } | { success: false; error: Error };

/**
 * Validates `value` against a tool's input schema (zod, standard schema or `jsonSchema()` with a
 * validator). A schema without a validator accepts the value as it is.
 */
export async function validateToolInput(schema: FlexibleSchema<unknown>, value: unknown): Promise<ToolInputValidation> {
  try {
    const validate = asSchema(schema).validate;
    if (!validate) return { success: true, value };
    const result = await validate(value);
    if (result.success) return { success: true, value: result.value };
    return { success: false, error: result.error };
  } catch (error) {
    return { success: false, error: error instanceof Error ? error : new Error(String(error)) };
  }
}
