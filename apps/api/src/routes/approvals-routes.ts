import type { AgentqClient } from '@agentq/client';
import { approvalJobSchema, decisionRecordSchema } from '@agentq/shared';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, conflictError, errorBodySchema, notFoundError, validationError } from './common-schemas.js';

const decisionBody = z.strictObject({
  approved: z.boolean(),
  reason: z.string().max(2_000).optional(),
  decidedBy: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .meta({ description: 'Who decided; recorded with the decision. Defaults to `api`.' }),
});

/** `/v1/approvals`: pending tool approvals and their decisions. */
export function approvalsRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
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
      method: 'POST',
      path: '/v1/approvals/{approvalId}/decision',
      operationId: 'decideApproval',
      summary: 'Approve or deny a pending tool call (recorded once)',
      tag: 'approvals',
      params: z.strictObject({ approvalId: z.string().min(1) }),
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
      async handler({ params, body }) {
        const decision = await client.decide({
          approvalId: params.approvalId,
          approved: body.approved,
          reason: body.reason,
          decidedBy: body.decidedBy ?? 'api',
        });
        return { body: { approvalId: params.approvalId, decision } };
      },
    }),
  ];
}
