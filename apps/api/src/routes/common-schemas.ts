import { RUN_ID_MAX_LENGTH, SCHEDULED_RUN_ID_MAX_LENGTH } from '@agentq/client';
import { z } from 'zod';

/**
 * The router's limit on one path parameter: the longest id any route takes (a run id, a scheduled
 * run's id, an approval id of up to 200 characters). Up to it, an id longer than its route takes
 * reaches the route's schema and gets a 400 `VALIDATION` naming the parameter (a run id past 128
 * characters, say); past it the router answers 414 `URI_TOO_LONG`, in the same error shape.
 */
export const ROUTE_PARAM_MAX_LENGTH = Math.max(RUN_ID_MAX_LENGTH, SCHEDULED_RUN_ID_MAX_LENGTH, 200);

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
  503: { description: 'UNAVAILABLE: Redis cannot be reached', schema: errorBodySchema },
} as const;

/** A 400 with the bad field. */
export const validationError = { description: 'Invalid input; `error.field` names the field', schema: errorBodySchema };
/** A 404. */
export const notFoundError = { description: 'No such resource', schema: errorBodySchema };
/** A 409. */
export const conflictError = { description: 'Conflicts with the current state', schema: errorBodySchema };

/**
 * Responses the server gives a route by its shape, whether or not the route lists them: 400 for a
 * bad parameter or body, and for a query key the route does not take (every route), 414 for a path
 * parameter longer than any id, 413 and 415 for a body too large or not JSON.
 */
export function shapeErrors(route: { params?: unknown; query?: unknown; body?: unknown }) {
  return {
    400: validationError,
    ...(route.body
      ? { 413: { description: 'PAYLOAD_TOO_LARGE: the body is too large', schema: errorBodySchema } }
      : {}),
    ...(route.params
      ? {
          414: {
            description: `URI_TOO_LONG: a path parameter is longer than ${ROUTE_PARAM_MAX_LENGTH} characters (a shorter one the route does not take is a 400)`,
            schema: errorBodySchema,
          },
        }
      : {}),
    ...(route.body
      ? { 415: { description: 'UNSUPPORTED_MEDIA_TYPE: the body is not application/json', schema: errorBodySchema } }
      : {}),
  };
}
