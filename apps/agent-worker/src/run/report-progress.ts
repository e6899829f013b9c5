import type { Logger, RunCheckpoint } from '@agentq/shared';
import type { Job } from 'bullmq';

/** Progress reported with `job.updateProgress`. */
export interface RunProgress {
  step: number;
  lastTool: string | null;
  status: RunCheckpoint['status'];
}

/**
 * Progress is advisory (the checkpoint is the record), so it is sent without making the run wait
 * for it; a failure is only logged.
 */
export function reportProgress(job: Pick<Job, 'updateProgress'>, logger: Logger, progress: RunProgress): void {
  job.updateProgress(progress).catch((error: Error) => {
    logger.debug({ error: error.message }, 'progress update failed');
  });
}
