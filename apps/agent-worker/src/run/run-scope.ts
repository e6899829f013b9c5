import type { RunSpec } from '@agentq/shared';
import type { Job } from 'bullmq';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';

/** The run an attempt works on, as each of the processor's steps sees it. */
export interface RunScope {
  job: Pick<Job, 'updateProgress'>;
  dependencies: RunProcessorDependencies;
  spec: RunSpec;
  runId: string;
  /** The run's incarnation (`runIncarnationOf`). */
  incarnation: string;
}
