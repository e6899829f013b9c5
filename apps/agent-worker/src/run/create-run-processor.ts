import { randomBytes } from 'node:crypto';
import {
  contextFromTrace,
  createRunSpecSchema,
  isParkedError,
  QUEUE_NAMES,
  runIncarnationOf,
  runSpecLimitsOf,
  SpanKind,
  toBullmqError,
  ValidationError,
  withSpan,
  type Logger,
  type RunCheckpoint,
  type RunResult,
  type RunSpec,
  type RunSpecSchema,
  type Span,
} from '@agentq/shared';
import type { Job } from 'bullmq';
import { parkForApprovals } from '../approvals/park-for-approvals.js';
import { ElicitationParkedError } from '../elicitations/elicitation-parked-error.js';
import { parkForElicitation } from '../elicitations/park-for-elicitation.js';
import { sealApprovalResponses } from '../approvals/seal-approval-responses.js';
import { classifyModelError } from '../errors/classify-model-error.js';
import { nativeToolSearchFor } from '../models/native-tool-search.js';
import type { ModelResolver } from '../models/create-model-resolver.js';
import { loadRunCheckpoint, type LoadedRun } from './load-run-checkpoint.js';
import { openRunTools, type OpenedRunTools } from './open-run-tools.js';
import { resumeFromApprovals } from './resume-from-approvals.js';
import { runModelLoop } from './run-model-loop.js';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';
import { runResultOf } from './run-result.js';
import type { RunFence } from '@agentq/store';
import { LazyChildLogger } from './lazy-child-logger.js';
import { createTurnGate, type TurnGate } from './turn-gate.js';
import { withRunTools } from './with-run-tools.js';

type AgentRunJob = Job<unknown, RunResult>;

/**
 * The `agent-runs` processor `(job, token, signal)`. Each run continues from its checkpoint when
 * there is one (after a stall, a crash, a retry or an approval pause), so work already done is
 * never redone: completed steps are not asked of the model again, and executed tool calls are
 * replayed from their recorded results.
 */
export function createRunProcessor(dependencies: RunProcessorDependencies) {
  // The same limits the producers check, from the same configuration.
  const runSpecSchema = createRunSpecSchema(runSpecLimitsOf(dependencies.config));
  // Approval signatures only have to hold within one model loop of one process: the worker signs
  // what its records approve right before the loop, so a per-process key that never leaves memory
  // is enough, and nothing stored anywhere can carry a valid signature.
  const approvalSecret = dependencies.approvalSecret ?? randomBytes(32);
  // Runs take turns at their synchronous stretches (attempt start, each model step).
  const gate = createTurnGate();
  return async (job: AgentRunJob, token?: string, signal?: AbortSignal): Promise<RunResult> =>
    // One span per attempt, continuing the trace the producer began: a resume on another worker
    // after an approval, a stall or a retry joins the same trace.
    await withSpan(
      'agentq.run',
      {
        kind: SpanKind.CONSUMER,
        parent: contextFromTrace((job.data as { trace?: unknown } | null | undefined)?.trace),
        attributes: {
          'messaging.system': 'bullmq',
          'messaging.destination.name': QUEUE_NAMES.agentRuns,
          'agentq.run.id': String(job.id),
          'agentq.run.attempts_started': job.attemptsStarted,
          'agentq.run.stalled_count': job.stalledCounter,
          ...(dependencies.workerId ? { 'agentq.worker.id': dependencies.workerId } : {}),
        },
        expectedError: parkedIsExpected,
      },
      async (span) => {
        try {
          const result = await processRun({
            job,
            token,
            signal,
            dependencies,
            runSpecSchema,
            approvalSecret,
            span,
            gate,
          });
          span.setAttributes({ 'agentq.outcome': 'completed', 'agentq.run.steps': result.steps.length });
          return result;
        } catch (error) {
          throw await toBullmqError(classifyModelError(error), { job, token });
        }
      },
    );
}

/** A run that parks ends its attempt's span as expected, not as an error. */
function parkedIsExpected(error: unknown): 'parked' | undefined {
  return isParkedError(error) ? 'parked' : undefined;
}

/** What every attempt at a job gets. */
interface AttemptOptions {
  job: AgentRunJob;
  token: string | undefined;
  signal: AbortSignal | undefined;
  dependencies: RunProcessorDependencies;
  runSpecSchema: RunSpecSchema;
  approvalSecret: Uint8Array;
  /** This attempt's span. */
  span: Span;
  /** The processor's {@link TurnGate}, shared by all its runs. */
  gate: TurnGate;
}

/**
 * Runs the job until it completes or parks (parking throws BullMQ's "parked" signal). When parking
 * finds every approval job finished already (decided before the run parked), the run starts over
 * from its checkpoint at once: an approval that still has no result then cannot get one any more
 * (its job failed), so it counts as denied.
 */
async function processRun(options: AttemptOptions): Promise<RunResult> {
  for (let afterPark = false; ; afterPark = true) {
    const outcome = await runAttempt({ ...options, afterPark });
    if (outcome.status === 'finished') return outcome.result;
  }
}

/** One pass over the run, from its checkpoint to completion or a park. */
type AttemptOutcome = { status: 'finished'; result: RunResult } | { status: 'start-over' };

/** An attempt under way: the run it works on and its tools. */
interface Attempt extends OpenedRunTools {
  spec: RunSpec;
  runId: string;
  incarnation: string;
  logger: Logger;
  resolved: ReturnType<ModelResolver['resolve']>;
  loaded: LoadedRun;
  /** The attempt's hold on the run's lock: its writes and tool calls only go through while it holds. */
  fence: RunFence | undefined;
}

async function runAttempt(options: AttemptOptions & { afterPark: boolean }): Promise<AttemptOutcome> {
  const { job, token, dependencies } = options;
  const started = await startAttempt(options);
  if (started.status === 'finished') return started;
  const attempt = started.attempt;
  const { spec, runId, incarnation, logger, fence, runTools } = attempt;
  let checkpoint = withRunTools(attempt.loaded.checkpoint, runTools);
  let resumeWrite: Promise<void> | undefined;
  if (checkpoint.pendingApprovals.length > 0) {
    const resumed = await resumeFromApprovals({
      ...options,
      checkpoint,
      childrenValues: attempt.loaded.childrenValues,
      run: { runId, incarnation },
      runTools,
      state: attempt.state,
      fence,
      logger,
    });
    if (resumed.status === 'start-over') return resumed;
    checkpoint = resumed.checkpoint;
    resumeWrite = resumed.written;
  }
  const lastMessage = checkpoint.messages.at(-1);
  if (checkpoint.step < spec.assistant.maxSteps && lastMessage?.role !== 'assistant') {
    try {
      checkpoint = await continueWithModel({ ...options, attempt, checkpoint, before: resumeWrite });
    } catch (error) {
      if (!ElicitationParkedError.isInstance(error)) throw error;
      await resumeWrite;
      await parkForElicitation({ job, token, elicitationId: error.elicitationId, dependencies, logger });
      return { status: 'start-over' };
    }
  }
  await resumeWrite;
  if (checkpoint.pendingApprovals.length > 0) {
    await parkForApprovals({ job, token, checkpoint, dependencies, logger, fence });
    return { status: 'start-over' };
  }
  if (checkpoint.status !== 'completed') {
    checkpoint = { ...checkpoint, status: 'completed', updatedAt: Date.now() };
    await dependencies.store.write(checkpoint, { fence });
  }
  return { status: 'finished', result: runResultOf(checkpoint, spec, runTools) };
}

/**
 * Reads the job's spec and the run's checkpoint, and builds the attempt's tools; a run found
 * completed already is finished here.
 */
async function startAttempt(
  options: AttemptOptions & { afterPark: boolean },
): Promise<{ status: 'finished'; result: RunResult } | { status: 'started'; attempt: Attempt }> {
  const { job, token, dependencies } = options;
  await options.gate.pass();
  const parsed = options.runSpecSchema.safeParse(job.data);
  if (!parsed.success) throw ValidationError.fromZod('run spec', parsed.error);
  const spec = parsed.data;
  const runId = String(job.id);
  // Which run this is among the runs ever enqueued under this id: approvals bind to it.
  const incarnation = runIncarnationOf(job);
  const logger = new LazyChildLogger(dependencies.logger, { component: 'run', runId });
  const resolved = dependencies.models.resolve(spec.assistant);
  const loaded = await loadRunCheckpoint({ ...options, store: dependencies.store, runId, incarnation, spec, logger });
  options.span.setAttributes({ 'agentq.run.resumed': loaded.stored, 'agentq.run.first_step': loaded.checkpoint.step });
  if (loaded.checkpoint.status === 'completed') {
    return { status: 'finished', result: runResultOf(loaded.checkpoint, spec) };
  }
  const fence: RunFence | undefined = token ? dependencies.store.fenceFor(runId, token) : undefined;
  const tools = await openRunTools({
    job,
    dependencies,
    spec,
    runId,
    incarnation,
    checkpoint: loaded.checkpoint,
    recorded: loaded.recorded,
    contextWindow: resolved.contextWindow,
    native: nativeToolSearchFor(spec.assistant.settings.toolExposition, resolved.model),
    fence,
    logger,
  });
  return { status: 'started', attempt: { ...tools, spec, runId, incarnation, logger, resolved, loaded, fence } };
}

/**
 * Seals the approval responses in the checkpoint's messages (whatever the messages say, only the
 * run's own approval records can approve a call), then asks the model for the remaining steps.
 */
async function continueWithModel(
  options: AttemptOptions & { attempt: Attempt; checkpoint: RunCheckpoint; before: Promise<void> | undefined },
): Promise<RunCheckpoint> {
  const { attempt, dependencies } = options;
  const sealed = sealApprovalResponses({
    messages: options.checkpoint.messages,
    runId: attempt.runId,
    incarnation: attempt.incarnation,
    shardIndex: dependencies.shardIndex,
    childrenValues: attempt.loaded.childrenValues,
    secret: options.approvalSecret,
  });
  if (sealed.refused.length > 0) {
    attempt.logger.warn({ approvalIds: sealed.refused }, 'approved responses without an approval record were denied');
  }
  // The job's abort stops the attempt: one listener on the job's signal for the loop's length
  // instead of a composite signal per attempt. The loop itself never sees the job's signal.
  const { signal, ...rest } = options;
  // A listener object, not a named arrow: under tsx every named function made per run carries a
  // property dictionary of its own (its `name`).
  const stopAttempt = {
    handleEvent() {
      attempt.attempt.abort(signal?.reason);
    },
  };
  if (signal?.aborted) stopAttempt.handleEvent();
  else signal?.addEventListener('abort', stopAttempt, { once: true });
  try {
    return await runModelLoop({
      ...rest,
      ...attempt,
      checkpoint: { ...options.checkpoint, messages: sealed.messages },
      stepAnswer: attempt.loaded.stepAnswer,
    });
  } finally {
    signal?.removeEventListener('abort', stopAttempt);
  }
}
