import {
  customRunIdSchema,
  parsedRunSpecSchemaOf,
  runIdSchema,
  type AgentqClient,
  type ParsedRunSpecSchema,
} from '@agentq/client';
import { runResultSchema, runSpecSchema } from '@agentq/shared';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, conflictError, notFoundError, validationError } from './common-schemas.js';
import { withSpecFields } from './spec-fields.js';

const runParams = z.strictObject({ runId: runIdSchema });

/**
 * `{ runId?, spec }`, or the run spec itself as the body (then a run id is generated). Built from
 * the client's run spec schema, so the route enforces the deployment's limits, not the defaults,
 * and in the form whose result the client's `enqueueRun` does not parse again.
 */
function enqueueBodySchema(runSpecSchema: ParsedRunSpecSchema) {
  const wrappedEnqueueBody = z.strictObject({
    runId: customRunIdSchema.optional().meta({
      description: 'Idempotency key and job id. Sending the same spec again under it adds nothing.',
    }),
    spec: runSpecSchema,
  });
  return z.preprocess(
    (body) => (body && typeof body === 'object' && !Array.isArray(body) && !('spec' in body) ? { spec: body } : body),
    wrappedEnqueueBody,
  );
}

const runInfoSchema = z
  .looseObject({
    runId: z.string(),
    state: z
      .enum(['waiting', 'active', 'delayed', 'waiting-approval', 'waiting-input', 'completed', 'failed', 'unknown'])
      .meta({
        description:
          '`waiting-approval`: parked on the approvals in `pendingApprovals`. `waiting-input`: parked on a question an MCP server asked (`pendingElicitations`), answered with `POST /v1/elicitations/{elicitationId}/answer`. A parked run whose checkpoint lists approvals is `waiting-approval`, even if it also has a question.',
      }),
    progress: z.record(z.string(), z.unknown()),
    result: runResultSchema.optional(),
    error: z.strictObject({ message: z.string() }).optional(),
    attemptsMade: z.number(),
    createdAt: z.number(),
    startedAt: z.number().optional(),
    finishedAt: z.number().optional(),
    pendingApprovals: z.array(
      z.looseObject({
        approvalId: z.string(),
        toolCallId: z.string(),
        toolName: z.string(),
        serverId: z.string().optional().describe('The MCP server the call goes to; absent for builtin tools.'),
      }),
    ),
    pendingElicitations: z.array(
      z.strictObject({
        elicitationId: z.string(),
        toolCallId: z.string(),
        toolName: z.string(),
        serverId: z.string(),
        message: z.string().meta({ description: "The server's question to the person." }),
        requestedAt: z.number(),
        expiresAt: z.number(),
      }),
    ),
    steps: z
      .array(
        z.strictObject({
          step: z.number(),
          at: z.number().optional(),
          catalogVersion: z.record(z.string(), z.string()).optional(),
        }),
      )
      .meta({
        description:
          'Steps recorded so far, each with the catalog version (`serverId → version`) of every server whose tools the model was shown.',
      }),
  })
  .meta({ id: 'RunInfo' });

const getRunQuery = z.strictObject({
  waitMs: z.coerce
    .number()
    .int()
    .min(0)
    .max(60_000)
    .optional()
    .meta({ description: 'Long-poll: wait up to this long for the run to finish before answering.' }),
});

const finished = new Set(['completed', 'failed']);

/** `/v1/runs`: enqueue, inspect, long-poll and cancel runs. */
export function runsRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'POST',
      scope: 'runs',
      path: '/v1/runs',
      operationId: 'enqueueRun',
      summary: 'Enqueue a run',
      tag: 'runs',
      // A client-less document build (OpenAPI) gets the default limits.
      body: enqueueBodySchema(
        client.parsedRunSpecSchema ?? parsedRunSpecSchemaOf(client.runSpecSchema ?? runSpecSchema),
      ),
      responses: {
        201: { description: 'Run enqueued', schema: z.strictObject({ runId: z.string(), created: z.boolean() }) },
        200: {
          description: 'A run with this id and spec already existed',
          schema: z.strictObject({ runId: z.string(), created: z.boolean() }),
        },
        400: validationError,
        409: conflictError,
        ...commonErrors,
      },
      async handler({ body }) {
        const enqueued = await withSpecFields(['runId'], () => client.enqueueRun(body.spec, { runId: body.runId }));
        return { status: enqueued.created ? 201 : 200, body: enqueued };
      },
    }),
    defineRoute({
      method: 'GET',
      scope: 'runs',
      path: '/v1/runs/{runId}',
      operationId: 'getRun',
      summary: 'State, progress, result or error, and pending approvals of a run',
      tag: 'runs',
      params: runParams,
      query: getRunQuery,
      responses: { 200: { description: 'The run', schema: runInfoSchema }, 404: notFoundError, ...commonErrors },
      async handler({ params, query, request }) {
        let run = await client.getRun(params.runId);
        if (query.waitMs && !finished.has(run.state)) {
          const deadline = Date.now() + query.waitMs;
          const controller = new AbortController();
          request.raw.once('close', () => controller.abort());
          while (!finished.has(run.state) && Date.now() < deadline && !controller.signal.aborted) {
            await new Promise((resolve) => setTimeout(resolve, Math.min(100, Math.max(0, deadline - Date.now()))));
            run = await client.getRun(params.runId);
          }
        }
        return { body: run };
      },
    }),
    defineRoute({
      method: 'DELETE',
      scope: 'runs',
      path: '/v1/runs/{runId}',
      operationId: 'cancelRun',
      summary: 'Cancel a run that is queued, delayed or waiting for approval',
      tag: 'runs',
      params: runParams,
      responses: {
        200: { description: 'Removed', schema: z.strictObject({ runId: z.string(), previousState: z.string() }) },
        404: notFoundError,
        409: conflictError,
        ...commonErrors,
      },
      async handler({ params }) {
        return { body: await client.cancelRun(params.runId) };
      },
    }),
  ];
}
