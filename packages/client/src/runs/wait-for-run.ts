import { setTimeout as sleep } from 'node:timers/promises';
import { AgentqError, type RunResult } from '@agentq/shared';
import type { ClientContext } from '../client-context.js';
import { getRun, type RunInfo } from './get-run.js';

/** Options of `waitForRun`. */
export interface WaitForRunOptions {
  /**
   * Give up after this long with code `TIMEOUT`. The run itself goes on.
   * @default 60000
   */
  timeoutMs?: number;
  /**
   * How often to look at the run. Polling rather than QueueEvents: it costs no extra blocking
   * connection per waiter, works the same under Redis Cluster, and a parked run may wait for days.
   * @default 100
   */
  pollIntervalMs?: number;
  /** Called whenever the state or progress changes, for live displays. */
  onUpdate?: (run: RunInfo) => void;
  /** Stops waiting early (code `ABORTED`). */
  signal?: AbortSignal;
}

/**
 * Resolves with the run's result once it completes. Rejects with `RUN_FAILED` (the failure's
 * message) when it fails, `NOT_FOUND` when it does not exist, `TIMEOUT` when it takes too long.
 */
export async function waitForRun(
  context: ClientContext,
  input: { runId: string; options?: WaitForRunOptions },
): Promise<RunResult> {
  const timeoutMs = input.options?.timeoutMs ?? 60_000;
  const interval = Math.max(10, input.options?.pollIntervalMs ?? 100);
  const deadline = Date.now() + timeoutMs;
  let lastSeen = '';
  for (;;) {
    if (input.options?.signal?.aborted) {
      throw new AgentqError({ code: 'ABORTED', message: `Stopped waiting for run ${input.runId}` });
    }
    const run = await getRun(context, input.runId);
    const fingerprint = JSON.stringify([run.state, run.progress, run.pendingApprovals.map((p) => p.approvalId)]);
    if (fingerprint !== lastSeen) {
      lastSeen = fingerprint;
      input.options?.onUpdate?.(run);
    }
    if (run.state === 'completed') {
      if (run.result) return run.result;
      throw new AgentqError({ code: 'RUN_FAILED', message: run.error?.message ?? 'invalid run result' });
    }
    if (run.state === 'failed') {
      throw new AgentqError({ code: 'RUN_FAILED', message: run.error?.message ?? 'failed' });
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new AgentqError({
        code: 'TIMEOUT',
        message: `Run ${input.runId} did not finish within ${timeoutMs} ms (state: ${run.state})`,
      });
    }
    await sleep(Math.min(interval, left));
  }
}
