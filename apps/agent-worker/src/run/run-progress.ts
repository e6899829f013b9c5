import type { RunCheckpoint } from '@agentq/shared';

/**
 * A run job's BullMQ progress (`job.progress`, and the `progress` events `QueueEvents` sees),
 * written with each step but the last by the step's own store write (see `RunStore.write`).
 */
export interface RunProgress {
  step: number;
  lastTool: string | null;
  status: RunCheckpoint['status'];
}
