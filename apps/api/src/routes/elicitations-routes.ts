import type { AgentqClient } from '@agentq/client';
import {
  AgentqError,
  RECORD_ID_MAX_LENGTH,
  elicitationRequestSchema,
  elicitationResponseRecordSchema,
  elicitationResponseSchema,
} from '@agentq/shared';
import { z } from 'zod';
import { principalOf } from '../auth/principal.js';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, conflictError, errorBodySchema, notFoundError, validationError } from './common-schemas.js';

const elicitationSchema = z.strictObject({
  request: elicitationRequestSchema.loose(),
  response: elicitationResponseRecordSchema.loose().nullable(),
  outcome: z.enum(['answer', 'expired', 'closed']).nullable(),
});

/**
 * `/v1/elicitations`: questions MCP servers with the elicitation policy `ask` put to a person
 * during a run's tool call, and their answers. Same scope as approvals: both resume a parked run.
 */
export function elicitationsRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      scope: 'approvals',
      path: '/v1/elicitations',
      operationId: 'listPendingElicitations',
      summary: 'List unanswered elicitations (the form each MCP server asked for)',
      tag: 'approvals',
      query: z.strictObject({ runId: z.string().min(1).optional() }),
      responses: {
        200: {
          description: 'Unanswered elicitations',
          schema: z.strictObject({ elicitations: z.array(elicitationSchema) }),
        },
        ...commonErrors,
      },
      async handler({ query }) {
        return { body: { elicitations: await client.listPendingElicitations({ runId: query.runId }) } };
      },
    }),
    defineRoute({
      method: 'GET',
      scope: 'approvals',
      path: '/v1/elicitations/{elicitationId}',
      operationId: 'getElicitation',
      summary: 'One elicitation: the message, the requested form schema and the answer',
      tag: 'approvals',
      params: z.strictObject({ elicitationId: z.string().min(1).max(RECORD_ID_MAX_LENGTH) }),
      responses: {
        200: { description: 'The elicitation record (kept seven days after it settles)', schema: elicitationSchema },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.getElicitation(params.elicitationId) };
      },
    }),
    defineRoute({
      method: 'POST',
      scope: 'approvals',
      path: '/v1/elicitations/{elicitationId}/answer',
      operationId: 'answerElicitation',
      summary: 'Answer an elicitation: accept with the form content, decline, or cancel (once)',
      tag: 'approvals',
      params: z.strictObject({ elicitationId: z.string().min(1).max(RECORD_ID_MAX_LENGTH) }),
      body: elicitationResponseSchema,
      responses: {
        200: {
          description: 'Answer recorded; the run resumes and its tool call is made again with the answer',
          schema: z.strictObject({ elicitationId: z.string(), answer: elicitationResponseRecordSchema.loose() }),
        },
        400: {
          ...validationError,
          description: 'VALIDATION: the content breaks the requested schema (the field is named)',
        },
        404: notFoundError,
        409: {
          ...conflictError,
          description:
            'ALREADY_DECIDED: the first answer stands; CONFLICT: the run was cancelled or finished, and the elicitation is closed',
        },
        410: { description: 'EXPIRED: the elicitation timed out and was cancelled', schema: errorBodySchema },
        500: {
          description: "RUN_STATE_CORRUPT: the elicitation's stored request cannot be read; nothing was recorded",
          schema: errorBodySchema,
        },
        ...commonErrors,
      },
      async handler({ params, body, request }) {
        const principal = principalOf(request);
        if (!principal) throw new AgentqError({ code: 'UNAUTHORIZED', message: 'Send Authorization: Bearer <token>' });
        const answer = await client.answerElicitation({
          elicitationId: params.elicitationId,
          response: body,
          answeredBy: principal.name,
          via: 'rest',
        });
        return { body: { elicitationId: params.elicitationId, answer } };
      },
    }),
  ];
}
