import { z } from 'zod';

/** Error body of every failure. */
export const errorBodySchema = z.strictObject({
  error: z.strictObject({
    code: z.string().meta({ description: 'Stable machine-readable code, for example VALIDATION or NOT_FOUND.' }),
    message: z.string(),
    field: z.string().optional().meta({ description: 'Dotted path of the offending input field.' }),
  }),
});

/** Responses every authenticated route can give. */
export const commonErrors = {
  401: { description: 'Missing or wrong bearer token', schema: errorBodySchema },
  403: { description: "FORBIDDEN: the token lacks this route's scope", schema: errorBodySchema },
} as const;

/** A 400 with the bad field. */
export const validationError = { description: 'Invalid input; `error.field` names the field', schema: errorBodySchema };
/** A 404. */
export const notFoundError = { description: 'No such resource', schema: errorBodySchema };
/** A 409. */
export const conflictError = { description: 'Conflicts with the current state', schema: errorBodySchema };
