import type { AgentqClient } from '@agentq/client';
import { AgentqError, approvalJobSchema, decisionRecordSchema } from '@agentq/shared';
import { z } from 'zod';
import { principalOf } from '../auth/principal.js';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, conflictError, errorBodySchema, notFoundError, validationError } from './common-schemas.js';

// No `decidedBy`: who decided is the name of the token that authenticated the request, so a body
// naming someone else is refused as an unknown field (VALIDATION) rather than silently ignored.
const decisionBody = z.strictObject({
  approved: z.boolean(),
  reason: z
    .string()
    .max(2_000)
    .optional()
    .meta({ description: 'A note recorded with the decision and shown to the model.' }),
});

/** `/v1/approvals`: pending tool approvals and their decisions. */
export function approvalsRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      scope: 'approvals',
      path: '/v1/approvals',
      operationId: 'listPendingApprovals',
      summary: 'List pending approvals',
      tag: 'approvals',
      query: z.strictObject({ runId: z.string().min(1).optional() }),
      responses: {
        200: {
          description: 'Pending approvals',
          schema: z.strictObject({ approvals: z.array(approvalJobSchema.loose()) }),
        },
        ...commonErrors,
      },
      async handler({ query }) {
        return { body: { approvals: await client.listPendingApprovals({ runId: query.runId }) } };
      },
    }),
    defineRoute({
      method: 'GET',
      scope: 'approvals',
      path: '/v1/approvals/{approvalId}',
      operationId: 'getApproval',
      summary: 'One approval and its decision: who decided, when, and through which path',
      tag: 'approvals',
      params: z.strictObject({ approvalId: z.string().min(1).max(200) }),
      responses: {
        200: {
          description: 'The approval record (kept seven days after it settles)',
          schema: z.strictObject({
            request: approvalJobSchema.loose(),
            decision: decisionRecordSchema.loose().nullable(),
            outcome: z.enum(['decision', 'expired', 'no-decision']).nullable(),
          }),
        },
        404: notFoundError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.getApproval(params.approvalId) };
      },
    }),
    defineRoute({
      method: 'POST',
      scope: 'approvals',
      path: '/v1/approvals/{approvalId}/decision',
      operationId: 'decideApproval',
      summary: 'Approve or deny a pending tool call (recorded once, as the token that decided)',
      tag: 'approvals',
      params: z.strictObject({ approvalId: z.string().min(1).max(200) }),
      body: decisionBody,
      responses: {
        200: {
          description: 'Decision recorded; the run resumes',
          schema: z.strictObject({ approvalId: z.string(), decision: decisionRecordSchema.loose() }),
        },
        400: validationError,
        404: notFoundError,
        409: { ...conflictError, description: 'ALREADY_DECIDED: the first decision stands' },
        410: { description: 'EXPIRED: the approval timed out and was denied', schema: errorBodySchema },
        ...commonErrors,
      },
      async handler({ params, body, request }) {
        const principal = principalOf(request);
        if (!principal) throw new AgentqError({ code: 'UNAUTHORIZED', message: 'Send Authorization: Bearer <token>' });
        const decision = await client.decide({
          approvalId: params.approvalId,
          approved: body.approved,
          reason: body.reason,
          decidedBy: principal.name,
          via: 'rest',
        });
        return { body: { approvalId: params.approvalId, decision } };
      },
    }),
  ];
}
