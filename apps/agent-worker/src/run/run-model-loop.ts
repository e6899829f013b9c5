import type { RunToolState } from '@agentq/registry';
import { ElicitationParkedError } from '../elicitations/elicitation-parked-error.js';
import { createInputDownload } from './create-input-download.js';
import { createRunToolCallRepair } from './create-run-tool-call-repair.js';
import { fitToolResultsToModel } from './fit-tool-results-to-model.js';
import type { Logger, RunCheckpoint, Span } from '@agentq/shared';
import {
  generateText,
  stepCountIs,
  type Experimental_DownloadFunction as DownloadFunction,
  type ModelMessage,
  type ToolCallRepairFunction,
  type ToolSet,
} from 'ai';
import type { ModelResolver } from '../models/create-model-resolver.js';
import type { RunTools } from './build-run-tools.js';
import { limitToolCallsPerStep, stepCallBudget } from './limit-tool-calls-per-step.js';
import { markPromptCache } from './mark-prompt-cache.js';
import type { RecordToolExecutionsOptions } from './record-tool-executions.js';
import { recordNativeSearches } from './native-search-timing.js';
import type { RunScope } from './run-scope.js';
import type { RunFence } from '@agentq/store';
import { StepAnswers, type StepAnswerRecord } from './step-answers.js';
import { StepRecorder } from './step-recorder.js';
import { StepSpans } from './step-spans.js';
import type { TurnGate } from './turn-gate.js';

// AGENTQ_MAX_TOOL_CALLS_PER_STEP's default, for processors built without a full configuration.
const DEFAULT_MAX_TOOL_CALLS_PER_STEP = 32;

/** Options of {@link runModelLoop}. */
export interface RunModelLoopOptions extends RunScope {
  /** The checkpoint to continue from, its approval responses already sealed. */
  checkpoint: RunCheckpoint;
  approvalSecret: Uint8Array;
  state: RunToolState;
  runTools: RunTools;
  resolved: ReturnType<ModelResolver['resolve']>;
  logger: Logger;
  /** A write that must have landed before the first step's checkpoint. @default none */
  before?: Promise<void>;
  fence: RunFence | undefined;
  /** The attempt's span; the loop is traced when it records. */
  span: Span;
  /**
   * The attempt's controller: its signal stops the model and the tools (the job's abort reaches it),
   * and the loop aborts it when a step could not be recorded.
   */
  attempt: AbortController;
  /** Passed before each step's synchronous part (prompt conversion, request build). @default none */
  gate?: TurnGate;
  /** The attempt's tool journal: the tools are shared by all runs, and each call finds its run's here. */
  journal: RecordToolExecutionsOptions;
  /** The model answer recorded for the run's step in flight, read with the checkpoint. @default none */
  stepAnswer?: StepAnswerRecord;
}

/**
 * Asks the model for the run's remaining steps, recording each one (see {@link StepRecorder}) as
 * it finishes. Returns the checkpoint of the last step, or throws the first failure to record one.
 */
export async function runModelLoop(options: RunModelLoopOptions): Promise<RunCheckpoint> {
  const { spec, runTools, dependencies } = options;
  await options.gate?.pass();
  // One controller for the attempt, not a composite signal per loop: a failed step write, an
  // elicitation park, a lost lock and the job's abort all stop the same calls.
  const { signal } = options.attempt;
  const spans = new StepSpans(options.runId);
  const traced = options.span.isRecording();
  const baseMessages = options.checkpoint.messages as ModelMessage[];
  const firstStep = options.checkpoint.step;
  const answers = stepAnswersOf(options);
  const steps = new StepRecorder({
    ...options,
    frame: {
      runId: options.runId,
      incarnation: options.incarnation,
      shardIndex: dependencies.shardIndex,
      baseMessages,
      firstStep,
      maxSteps: spec.assistant.maxSteps,
      approvalTimeoutMs: spec.approval.timeoutMs ?? dependencies.config.approvalTimeoutMs,
      schemaDigests: runTools.schemaDigests,
      wireNames: runTools.wireNames,
    },
    toolState: options.state,
    spans,
    traced,
    stop: options.attempt,
  });
  try {
    await generateText({
      ...modelCallSettings(options, answers),
      messages: baseMessages,
      stopWhen: stepCountIs(spec.assistant.maxSteps - firstStep),
      onStepFinish: finishStepWith(options, { answers, spans, traced, steps }),
      experimental_context: options.journal,
      // Model calls and tool calls as spans of this attempt. Prompts, arguments, results and
      // outputs only with AGENTQ_TRACE_ARGUMENTS: they may hold anything, secrets included.
      experimental_telemetry: {
        isEnabled: traced,
        tracer: traced ? spans.tracer : undefined,
        functionId: 'agentq.run',
        metadata: { runId: options.runId },
        recordInputs: dependencies.config.traceArguments === true,
        recordOutputs: dependencies.config.traceArguments === true,
      },
    });
  } catch (error) {
    const parked = ElicitationParkedError.isInstance(signal.reason) ? signal.reason : undefined;
    spans.fail(steps.error ?? parked ?? error);
    throw steps.error ?? parked ?? error;
  } finally {
    spans.close();
  }
  if (steps.error) throw steps.error;
  // The SDK may finish a step's loop without noticing the abort (the parked call was the last).
  if (ElicitationParkedError.isInstance(signal.reason)) throw signal.reason;
  return steps.checkpoint;
}

/** A step that calls tools has its answer recorded before they run, and replayed on a re-run. */
function stepAnswersOf(options: RunModelLoopOptions): StepAnswers {
  const { runId, incarnation, fence } = options;
  return new StepAnswers({
    store: options.dependencies.store,
    runId,
    incarnation,
    fence,
    recorded: options.stepAnswer,
  });
}

/** The loop's `onStepFinish`: the step's native searches recorded, then the step itself. */
function finishStepWith(
  options: RunModelLoopOptions,
  parts: { answers: StepAnswers; spans: StepSpans; traced: boolean; steps: StepRecorder },
) {
  return async (step: Parameters<StepRecorder['finish']>[0]) => {
    // A step cut short by a tool call parked on an elicitation is not recorded: the run parks,
    // and the call is made again once the question is answered.
    const { signal } = options.attempt;
    if (signal.aborted && ElicitationParkedError.isInstance(signal.reason)) return;
    await recordNativeSearches({
      ...options,
      content: step.content,
      timing: parts.answers.lastCall,
      store: options.dependencies.store,
      stepContext: parts.traced ? parts.spans.current().context : undefined,
      traceArguments: options.dependencies.config.traceArguments === true,
    });
    await parts.steps.finish(step);
  };
}

/** The model, its prompt, tools and settings for one loop. */
function modelCallSettings(options: RunModelLoopOptions, answers: StepAnswers) {
  const { spec, runTools, resolved } = options;
  const { signal } = options.attempt;
  const system =
    [spec.assistant.system, runTools.unavailablePrompt, runTools.deferredPrompt].filter(Boolean).join('\n\n') ||
    undefined;
  // The limited tools are shared by all runs; each call counts in the budget its journal carries.
  const perStep = stepCallBudget(options.journal, {
    maxCalls: options.dependencies.config.maxToolCallsPerStep ?? DEFAULT_MAX_TOOL_CALLS_PER_STEP,
  });
  const cached = markPromptCache({
    provider: resolved.model.provider,
    system,
    tools: fitToolResultsToModel(limitToolCallsPerStep(runTools.tools), resolved.model.provider),
  });
  // Image and file URLs the model does not read itself: through the guarded fetch, under a byte
  // cap, once per attempt (the SDK's own download would run on every step, to any address), for
  // the steps and for the repair's follow-up call alike. Made on the first download: most runs
  // have no URL parts, and a parked run keeps it.
  const download = lazyDownload(() => createInputDownload({ config: options.dependencies.config, signal }));
  let repair: ToolCallRepairFunction<ToolSet> | undefined;
  return {
    model: answers.wrap(resolved.model),
    system: cached.system,
    tools: cached.tools,
    // Methods rather than arrow properties here and below: the same code, without a named
    // function object per run (under tsx each such name costs a property dictionary).
    async prepareStep({ messages, stepNumber }: { messages: ModelMessage[]; stepNumber: number }) {
      await options.gate?.pass();
      perStep.startStep();
      answers.step = options.checkpoint.step + stepNumber;
      // The run step this step's tool calls ask their servers' questions in, and the calls it holds.
      const elicitations = options.journal.elicitations;
      if (elicitations) {
        elicitations.step = options.checkpoint.step + stepNumber;
        elicitations.stepShows = (toolCallId) => perStep.shows(toolCallId);
      }
      const marked = cached.messages(messages);
      return marked === messages ? undefined : { messages: marked };
    },
    // Made on the first call that needs repair: most runs never have one.
    experimental_repairToolCall(failed: Parameters<ToolCallRepairFunction<ToolSet>>[0]) {
      repair ??= createRunToolCallRepair({
        model: resolved.model,
        logger: options.logger,
        abortSignal: signal,
        download,
      });
      return repair(failed);
    },
    abortSignal: signal,
    // The loop keeps every finished step until it ends; without this each would hold its request
    // body (the whole prompt and tool list, as JSON) and the raw answer for the rest of the run, a
    // parked run's heap growing with the square of its steps. Nothing here reads them.
    experimental_include: { requestBody: false, responseBody: false },
    experimental_download: download,
    // System messages in the input come from the producing service, which is trusted.
    allowSystemInMessages: true,
    // The loop executes an approved call only when its request carries a valid signature, and
    // only sealApprovalResponses signs, for calls the run's approval records approve.
    experimental_toolApprovalSecret: options.approvalSecret,
    maxRetries: 1,
    temperature: spec.assistant.settings.temperature,
    topP: spec.assistant.settings.topP,
    maxOutputTokens: spec.assistant.settings.maxOutputTokens,
    seed: spec.assistant.settings.seed,
  };
}

/**
 * A download function made on its first call with something to download: the SDK calls it before
 * every step, nearly always with an empty list.
 */
function lazyDownload(make: () => DownloadFunction): DownloadFunction {
  let made: DownloadFunction | undefined;
  return (requested) => (requested.length === 0 ? Promise.resolve([]) : (made ??= make())(requested));
}
