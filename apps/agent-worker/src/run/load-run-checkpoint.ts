import { isOfRunIncarnation, type Logger, type RunCheckpoint, type RunSpec } from '@agentq/shared';
import type { Job } from 'bullmq';
import { freshCheckpoint } from './fresh-checkpoint.js';
import type { RecordedToolResult, RunStore } from '@agentq/store';
import { parseStepAnswer, type StepAnswerRecord } from './step-answers.js';

/** What an attempt starts from. */
export interface LoadedRun {
  checkpoint: RunCheckpoint;
  /** Whether a checkpoint was stored (even one of an earlier run under this id). */
  stored: boolean;
  /** The values of the job's finished children: the approvals decided so far. */
  childrenValues: Record<string, unknown>;
  /** The run's tool journal, by tool call id. */
  recorded: Map<string, RecordedToolResult>;
  /** The model answer recorded for the run's step in flight (see `StepAnswers`), if any. */
  stepAnswer: StepAnswerRecord | undefined;
}

/**
 * Reads what a run has done so far: its checkpoint, its children's values, its recorded tool
 * results and the model answer of its step in flight, in one round trip; a run that has done
 * nothing gets a fresh checkpoint. An unreadable step answer throws `RUN_STATE_CORRUPT`.
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
  const [stored, childrenValues, recorded, answerText] = firstStart
    ? [null, {}, new Map<string, RecordedToolResult>(), null]
    : await Promise.all([
        store.read(runId, { strict: true }),
        job.getChildrenValues<unknown>(),
        store.recordedToolResults(runId, incarnation),
        store.readStepAnswer(runId),
      ]);
  // A checkpoint another incarnation wrote belongs to an earlier run under this id (removed without
  // its state): never resume it. One without an incarnation predates them and is this job's.
  const earlier = stored !== null && !isOfRunIncarnation(stored, incarnation);
  if (earlier) options.logger.warn('the stored checkpoint belongs to an earlier run under this id; starting afresh');
  const checkpoint =
    stored && !earlier ? stored : freshCheckpoint({ runId, incarnation, spec: options.spec, now: Date.now() });
  const stepAnswer = answerText === null ? undefined : parseStepAnswer(runId, answerText);
  return { checkpoint, stored: stored !== null, childrenValues, recorded, stepAnswer };
}
