import type { RunToolState } from '@agentq/registry';
import { recordSpanError, traceContextFromSpanContext, type Logger, type RunCheckpoint } from '@agentq/shared';
import { queueApprovalRegistrations, redisTime } from '@agentq/store';
import {
  applyStep,
  approvalRequestPartsOf,
  type AppliedStep,
  type FinishedModelStep,
  type ModelLoopFrame,
} from './apply-step.js';
import { crashPoint } from './crash-hook.js';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';
import type { RunFence } from '@agentq/store';
import type { StepSpans } from './step-spans.js';

/** Options of {@link StepRecorder}. */
export interface StepRecorderOptions {
  dependencies: Pick<RunProcessorDependencies, 'store' | 'prefix' | 'env' | 'redis'>;
  logger: Logger;
  /** The checkpoint the loop starts from. */
  checkpoint: RunCheckpoint;
  frame: ModelLoopFrame;
  /** The run's live tool state; each step's checkpoint records it as the step left it. */
  toolState: RunToolState;
  spans: StepSpans;
  /** Whether the attempt is traced: approvals then carry their step's trace context. */
  traced: boolean;
  fence: RunFence | undefined;
  /** A write that must have landed before the first step's checkpoint. @default none */
  before?: Promise<void>;
  /** Stops the model loop when a step could not be recorded. */
  stop: AbortController;
}

/**
 * The effects of finishing a model step, around the pure {@link applyStep}: the checkpoint, its
 * progress report and its approval records in one transaction, the crash points and the step's span.
 * The SDK swallows errors thrown by step callbacks; a checkpoint that could not be written stops
 * the loop instead (see {@link StepRecorder.error}), so that no step runs without its predecessor
 * being durable.
 */
export class StepRecorder {
  /** The checkpoint as of the last step recorded. */
  checkpoint: RunCheckpoint;
  /** The first failure to record a step; the loop must end with it. */
  error: unknown;

  constructor(private readonly options: StepRecorderOptions) {
    this.checkpoint = options.checkpoint;
  }

  /** The loop's `onStepFinish`. Never throws. */
  async finish(step: FinishedModelStep): Promise<void> {
    const { frame, spans } = this.options;
    const span = spans.take();
    span.setAttributes({
      'agentq.step': frame.firstStep + step.stepNumber,
      'agentq.step.finish_reason': step.finishReason,
      'agentq.step.tool_calls': step.toolCalls.length,
    });
    const trace = this.options.traced ? traceContextFromSpanContext(span.spanContext()) : undefined;
    try {
      await this.options.before;
      // A step that asks for approvals dates them by Redis's clock, the one their expiry is judged
      // by: a parking worker whose clock is slow must not shorten the person's window.
      const now =
        approvalRequestPartsOf(step.content).length > 0 ? await redisTime(this.options.dependencies.redis) : Date.now();
      const applied = applyStep(this.checkpoint, {
        result: step,
        frame,
        toolState: this.options.toolState,
        now,
        trace,
      });
      this.checkpoint = applied.checkpoint;
      await this.record(applied);
      span.setAttributes({
        'agentq.step.approvals_requested': applied.approvalRequests.length,
        'agentq.run.status': applied.checkpoint.status,
      });
    } catch (error) {
      recordSpanError(span, error);
      this.error ??= error;
      this.options.stop.abort(error);
    } finally {
      span.end();
    }
  }

  /**
   * Checkpoint first, with the approval records in the same transaction: from here on a decision
   * can be recorded even though no approval job exists yet. The progress report rides in the
   * checkpoint's own script: one call instead of a second script per step, and never ahead of it.
   */
  private async record(applied: AppliedStep): Promise<void> {
    const { dependencies, frame } = this.options;
    const requests = applied.approvalRequests;
    await dependencies.store.write(applied.checkpoint, {
      fence: this.options.fence,
      progress: applied.progress,
      sideWrites:
        requests.length === 0
          ? undefined
          : (transaction) =>
              queueApprovalRegistrations(transaction, {
                redis: dependencies.redis,
                prefix: dependencies.prefix,
                requests,
              }),
    });
    crashPoint('after-step', frame.runId, dependencies.env);
    if (requests.length > 0) crashPoint('after-checkpoint', frame.runId, dependencies.env);
  }
}
