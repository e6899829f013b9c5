import { isOfRunIncarnation, type Logger, type RunCheckpoint, type RunSpec } from '@agentq/shared';
import type { Job } from 'bullmq';
import { freshCheckpoint } from './fresh-checkpoint.js';
import type { RecordedToolResult, RunStore } from '@agentq/store';

/** What an attempt starts from. */
export interface LoadedRun {
  checkpoint: RunCheckpoint;
  /** Whether a checkpoint was stored (even one of an earlier run under this id). */
  stored: boolean;
  /** The values of the job's finished children: the approvals decided so far. */
  childrenValues: Record<string, unknown>;
  /** The run's tool journal, by tool call id. */
  recorded: Map<string, RecordedToolResult>;
}

/**
 * Reads what a run has done so far: its checkpoint, its children's values and its recorded tool
 * results, in one round trip; a run that has done nothing gets a fresh checkpoint.
 */
export async function loadRunCheckpoint(options: {
  job: Pick<Job, 'attemptsStarted' | 'attemptsMade' | 'stalledCounter' | 'getChildrenValues'>;
  store: RunStore;
  runId: string;
  incarnation: string;
  spec: RunSpec;
  /** Set when this attempt already parked once and found every approval job finished. */
  afterPark: boolean;
  logger: Logger;
}): Promise<LoadedRun> {
  const { job, store, runId, incarnation } = options;
  // A job on its very first start cannot have a checkpoint (job ids are unique while the job
  // exists), so the read is skipped there: it is one Redis round trip on every run's path.
  const firstStart =
    !options.afterPark && job.attemptsStarted === 1 && job.attemptsMade === 0 && job.stalledCounter === 0;
  const [stored, childrenValues, recorded] = firstStart
    ? [null, {}, new Map<string, RecordedToolResult>()]
    : await Promise.all([
        store.read(runId, { strict: true }),
        job.getChildrenValues<unknown>(),
        store.recordedToolResults(runId, incarnation),
      ]);
  // A checkpoint another incarnation wrote belongs to an earlier run under this id (removed without
  // its state): never resume it. One without an incarnation predates them and is this job's.
  const earlier = stored !== null && !isOfRunIncarnation(stored, incarnation);
  if (earlier) options.logger.warn('the stored checkpoint belongs to an earlier run under this id; starting afresh');
  const checkpoint =
    stored && !earlier ? stored : freshCheckpoint({ runId, incarnation, spec: options.spec, now: Date.now() });
  return { checkpoint, stored: stored !== null, childrenValues, recorded };
}
