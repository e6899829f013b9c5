import { parkedError, type Logger } from '@agentq/shared';
import { readElicitation } from '@agentq/store';
import type { Job } from 'bullmq';
import { promoteQuietly } from '../approvals/add-approval-job.js';
import type { RunProcessorDependencies } from '../run/run-processor-dependencies.js';

/** How long finished elicitation jobs stay visible (Bull Board, audits). */
const keepFinishedSeconds = 7 * 24 * 3600;

/** Options of {@link parkForElicitation}. */
export interface ParkForElicitationOptions {
  job: Job;
  token: string | undefined;
  elicitationId: string;
  dependencies: Pick<RunProcessorDependencies, 'redis' | 'prefix' | 'approvalsQueue'>;
  logger: Logger;
}

/**
 * Parks a run on an elicitation as on an approval, without holding a worker: adds the delayed
 * `elicitation` child of the run to the `approvals` queue (job id = elicitation id, so adding twice
 * is a no-op; delayed until the elicitation expires), promotes it when an answer is already
 * recorded, then moves the run to `waiting-children` and throws BullMQ's "parked" signal. Returns
 * normally only when the child had already finished, so the caller can start over at once.
 */
export async function parkForElicitation(options: ParkForElicitationOptions): Promise<void> {
  const { job, dependencies, elicitationId } = options;
  if (!options.token) throw new Error('cannot park a run without its lock token');
  const record = await readElicitation({ redis: dependencies.redis, prefix: dependencies.prefix, elicitationId });
  if (!record) throw new Error(`elicitation ${elicitationId} was not registered`);
  const child = await dependencies.approvalsQueue.add(
    'elicitation',
    { elicitationId },
    {
      jobId: elicitationId,
      parent: { id: String(job.id), queue: job.queueQualifiedName },
      delay: Math.max(0, record.request.expiresAt - Date.now()),
      attempts: 5,
      backoff: { type: 'exponential', delay: 1_000 },
      ignoreDependencyOnFailure: true,
      removeOnComplete: { age: keepFinishedSeconds },
      removeOnFail: { age: keepFinishedSeconds },
    },
  );
  if (record.response) await promoteQuietly(child, options.logger);
  options.logger.info({ elicitationId, serverId: record.request.serverId }, 'run parked on an elicitation');
  const parked = await job.moveToWaitingChildren(options.token);
  if (parked) throw parkedError();
}
