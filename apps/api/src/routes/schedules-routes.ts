import { scheduleIdSchema, type AgentqClient } from '@agentq/client';
import { runSpecSchema, type RunSpecSchema } from '@agentq/shared';
import { z } from 'zod';
import { defineRoute, type ApiRoute } from '../http/api-route.js';
import { commonErrors, notFoundError, validationError } from './common-schemas.js';
import { withSpecFields } from './spec-fields.js';

const scheduleParams = z.strictObject({ scheduleId: scheduleIdSchema });

/** A schedule's body; its spec is checked under the client's limits. */
function scheduleBodySchema(spec: RunSpecSchema) {
  return z.strictObject({
    cron: z.string().min(1).optional().meta({ description: 'Cron pattern (5 or 6 fields). Give this or everyMs.' }),
    everyMs: z.number().int().min(100).optional().meta({ description: 'Fixed interval in ms. Give this or cron.' }),
    timezone: z.string().min(1).optional(),
    spec,
  });
}

const scheduleSchema = z
  .looseObject({
    scheduleId: z.string(),
    cron: z.string().optional(),
    everyMs: z.number().optional(),
    timezone: z.string().optional(),
    nextRunAt: z.number().optional(),
    iterations: z.number().optional(),
    spec: runSpecSchema.optional(),
  })
  .meta({ id: 'Schedule' });

/** `/v1/schedules`: recurring runs through BullMQ job schedulers. */
export function schedulesRoutes(client: AgentqClient): ApiRoute[] {
  return [
    defineRoute({
      method: 'GET',
      scope: 'runs',
      path: '/v1/schedules',
      operationId: 'listSchedules',
      summary: 'List schedules, soonest first',
      tag: 'schedules',
      responses: {
        200: { description: 'Schedules', schema: z.strictObject({ schedules: z.array(scheduleSchema) }) },
        ...commonErrors,
      },
      async handler() {
        return { body: { schedules: await client.listSchedules() } };
      },
    }),
    defineRoute({
      method: 'PUT',
      scope: 'runs',
      path: '/v1/schedules/{scheduleId}',
      operationId: 'putSchedule',
      summary: 'Create or replace a schedule',
      tag: 'schedules',
      params: scheduleParams,
      body: scheduleBodySchema(client.runSpecSchema ?? runSpecSchema),
      responses: {
        200: { description: 'The schedule', schema: scheduleSchema },
        400: validationError,
        ...commonErrors,
      },
      async handler({ params, body }) {
        const schedule = await withSpecFields(['cron', 'everyMs', 'timezone'], () =>
          client.scheduleRun(params.scheduleId, body),
        );
        return { body: schedule };
      },
    }),
    defineRoute({
      method: 'DELETE',
      scope: 'runs',
      path: '/v1/schedules/{scheduleId}',
      operationId: 'removeSchedule',
      summary: 'Remove a schedule (runs it already made go on)',
      tag: 'schedules',
      params: scheduleParams,
      responses: { 204: { description: 'Removed' }, 404: notFoundError, ...commonErrors },
      async handler({ params }) {
        await client.removeSchedule(params.scheduleId);
        return { status: 204 };
      },
    }),
  ];
}
