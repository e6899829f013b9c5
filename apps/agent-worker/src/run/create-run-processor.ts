import { applyMetaToolEffects, type RunToolState } from '@agentq/registry';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  activeContext,
  AgentqError,
  agentqTracer,
  contextFromTrace,
  contextWithSpan,
  reparentingTracer,
  digestOf,
  QUEUE_NAMES,
  recordSpanError,
  SpanKind,
  traceContextFromSpanContext,
  isParkedError,
  toBullmqError,
  withSpan,
  type Context,
  type Span,
  createRunSpecSchema,
  parseToolId,
  isOfRunIncarnation,
  runIncarnationOf,
  runResultSchema,
  runSpecLimitsOf,
  ValidationError,
  type ApprovalJob,
  type Logger,
  type PendingApproval,
  type RunCheckpoint,
  type RunResult,
  type RunSpec,
  type RunWarning,
  type RunSpecSchema,
  type Usage,
} from '@agentq/shared';
import { queueApprovalRegistrations, readApprovalRecords, type EvalQueue } from '@agentq/store';
import { generateText, stepCountIs, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import type { Job } from 'bullmq';
import { approvalIdFor } from '../approvals/approval-id.js';
import { collectApprovalResponses, appendApprovalResponses } from '../approvals/collect-approval-responses.js';
import { parkForApprovals } from '../approvals/park-for-approvals.js';
import { sealApprovalResponses } from '../approvals/seal-approval-responses.js';
import { classifyModelError } from '../errors/classify-model-error.js';
import type { ModelResolver } from '../models/create-model-resolver.js';
import { nativeToolSearchFor } from '../models/native-tool-search.js';
import { buildRunTools } from './build-run-tools.js';
import { createRunToolCallRepair } from './create-run-tool-call-repair.js';
import { fitToolResultsToModel } from './fit-tool-results-to-model.js';
import { memoizeCatalogReads } from './memoize-catalog-reads.js';
import { crashPoint } from './crash-hook.js';
import { markPromptCache } from './mark-prompt-cache.js';
import { limitToolCallsPerStep } from './limit-tool-calls-per-step.js';
import { recordToolExecutions } from './record-tool-executions.js';
import type { RecordedToolResult, RunFence } from './run-store.js';
import type { RunProcessorDependencies } from './run-processor-dependencies.js';
import { answeredToolCallIds, summarizeToolCalls } from './summarize-tool-calls.js';

/** Progress reported with `job.updateProgress`. */
export interface RunProgress {
  step: number;
  lastTool: string | null;
  status: RunCheckpoint['status'];
}

type AgentRunJob = Job<unknown, RunResult>;

// AGENTQ_MAX_TOOL_CALLS_PER_STEP's default, for processors built without a full configuration.
const DEFAULT_MAX_TOOL_CALLS_PER_STEP = 32;

const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/** The AI SDK's spans of one step: they hang under the run's step span. */
const stepScopedSpans = new Set(['ai.generateText.doGenerate', 'ai.toolCall']);

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
        expectedError: (error) => (isParkedError(error) ? 'parked' : undefined),
      },
      async (span) => {
        try {
          const result = await processRun({ job, token, signal, dependencies, runSpecSchema, approvalSecret, span });
          span.setAttributes({ 'agentq.outcome': 'completed', 'agentq.run.steps': result.steps.length });
          return result;
        } catch (error) {
          throw await toBullmqError(classifyModelError(error), { job, token });
        }
      },
    );
}

async function processRun(options: {
  job: AgentRunJob;
  token: string | undefined;
  signal: AbortSignal | undefined;
  dependencies: RunProcessorDependencies;
  runSpecSchema: RunSpecSchema;
  approvalSecret: Uint8Array;
  /** This attempt's span. */
  span: Span;
  /**
   * Set when this attempt already tried to park and found every approval job finished: the run
   * must continue from its checkpoint, and an approval that still has no result cannot get one
   * any more (its job failed), so it counts as denied.
   */
  afterPark?: boolean;
}): Promise<RunResult> {
  const { job, token, dependencies } = options;
  const { store, env } = dependencies;
  const parsed = options.runSpecSchema.safeParse(job.data);
  if (!parsed.success) throw ValidationError.fromZod('run spec', parsed.error);
  const spec = parsed.data;
  const runId = String(job.id);
  // Which run this is among the runs ever enqueued under this id: approvals bind to it.
  const incarnation = runIncarnationOf(job);
  const logger = dependencies.logger.child({ component: 'run', runId });
  const resolved = dependencies.models.resolve(spec.assistant);

  // A job on its very first start cannot have a checkpoint (job ids are unique while the job
  // exists), so the read is skipped there: it is one Redis round trip on every run's path.
  const firstStart =
    !options.afterPark && job.attemptsStarted === 1 && job.attemptsMade === 0 && job.stalledCounter === 0;
  // A run started before may be parked on approvals or have executed tools: read its children's
  // values and its recorded tool results in the same round trip as its checkpoint.
  const [stored, childrenValues, recorded] = firstStart
    ? [null, {}, new Map<string, RecordedToolResult>()]
    : await Promise.all([
        store.read(runId),
        job.getChildrenValues<unknown>(),
        store.recordedToolResults(runId, incarnation),
      ]);
  // A checkpoint another incarnation wrote belongs to an earlier run under this id (removed without
  // its state): never resume it. One without an incarnation predates them and is this job's.
  const earlier = stored !== null && !isOfRunIncarnation(stored, incarnation);
  if (earlier) logger.warn('the stored checkpoint belongs to an earlier run under this id; starting afresh');
  let checkpoint = stored && !earlier ? stored : freshCheckpoint(runId, incarnation, spec);
  options.span.setAttributes({ 'agentq.run.resumed': stored !== null, 'agentq.run.first_step': checkpoint.step });
  if (checkpoint.status === 'completed') return resultOf(checkpoint, spec);

  // This attempt: its id marks its tool-call claims, and it is aborted when it turns out that
  // another worker has taken the run over.
  const attemptId = randomUUID();
  const attempt = new AbortController();
  // Writes and tool calls of this attempt only go through while it still holds the run's lock.
  const fence: RunFence | undefined = token ? { lockKey: `${job.queueQualifiedName}:${runId}:lock`, token } : undefined;
  const state: RunToolState = {
    allowedNames: [...checkpoint.allowedNames],
    inspectedNames: [...checkpoint.inspectedNames],
  };
  const runTools = await buildRunTools({
    spec,
    registry: dependencies.registry,
    reader: memoizeCatalogReads(dependencies.reader),
    caller: dependencies.caller,
    contextWindow: resolved.contextWindow,
    state,
    shownNames: checkpoint.wireNames,
    logger,
    embedding: dependencies.embedding,
    native: nativeToolSearchFor(spec.assistant.settings.toolExposition, resolved.model),
    wrap: (tools) =>
      recordToolExecutions(tools, {
        runId,
        incarnation,
        store,
        recorded,
        owner: attemptId,
        fence,
        secrets: dependencies.secrets,
        onLockLost: () =>
          attempt.abort(new AgentqError({ code: 'LOCK_LOST', message: 'the run moved to another worker' })),
        onExecute: async (toolName) => {
          crashPoint('before-tool', runId, env);
          reportProgress(job, logger, { step: checkpoint.step, lastTool: toolName, status: 'running' });
        },
        onRecorded: () => crashPoint('after-tool-result', runId, env),
        // The journal may be ahead of the checkpoint (a crash between a result and its step's
        // write): a replayed meta tool result re-applies its effects, or a tool_inspect the model
        // saw would be forgotten and the next tool_invoke refused.
        onReplay: ({ toolName, input, recorded }) => {
          if ('ok' in recorded && recorded.ok)
            applyMetaToolEffects(state, { toolName, input, output: recorded.output });
        },
      }),
  });
  checkpoint.catalogVersion = { ...checkpoint.catalogVersion, ...runTools.catalogVersion };
  // Names shown to the model stay recorded (its history holds them), and warnings accumulate.
  checkpoint.wireNames = { ...checkpoint.wireNames, ...runTools.wireNames };
  checkpoint.warnings = mergeWarnings(checkpoint.warnings, runTools.warnings);

  let resumeWrite: Promise<void> | undefined;
  if (checkpoint.pendingApprovals.length > 0) {
    // A parked run: never ask the model again and never request a second approval; either
    // everything is decided, or the missing approval jobs are (re)added and the run parks again.
    // Each approved call is compared with its decision record as stored, not with this checkpoint.
    const records = await readApprovalRecords({
      redis: dependencies.redis,
      prefix: dependencies.prefix,
      approvalIds: checkpoint.pendingApprovals.map((pending) => pending.approvalId),
    });
    const collected = collectApprovalResponses({
      childrenValues,
      checkpoint,
      records,
      run: { runId, incarnation },
      runTools,
      missingAsDenied: options.afterPark === true,
      onRefused: (refusal) => logger.warn(refusal, 'an approved call is not the call the person decided; denied'),
    });
    if (collected === null) {
      await parkForApprovals({ job, token, checkpoint, dependencies, logger, fence });
      return await processRun({ ...options, afterPark: true });
    }
    checkpoint = {
      ...checkpoint,
      messages: appendApprovalResponses(checkpoint.messages, collected),
      allowedNames: state.allowedNames,
      inspectedNames: state.inspectedNames,
      pendingApprovals: [],
      status: 'running',
      updatedAt: Date.now(),
    };
    checkpoint.toolCalls = summarizeToolCalls(checkpoint.messages);
    // Written behind: correctness does not depend on it (a re-run collects the same decisions
    // again, and executed tools replay from their records), it only shows the run as running
    // sooner. The next write on the same connection lands after it.
    resumeWrite = store.write(checkpoint, { fence });
    resumeWrite.catch(() => undefined);
    crashPoint('after-resume', runId, env);
  }

  const maxSteps = spec.assistant.maxSteps;
  const lastMessage = checkpoint.messages.at(-1);
  const finished = checkpoint.step >= maxSteps || lastMessage?.role === 'assistant';
  if (!finished) {
    // Whatever the messages say, only the run's own approval records can approve a call.
    const sealed = sealApprovalResponses({
      messages: checkpoint.messages,
      runId,
      incarnation,
      shardIndex: dependencies.shardIndex,
      childrenValues,
      secret: options.approvalSecret,
    });
    if (sealed.refused.length > 0) {
      logger.warn({ approvalIds: sealed.refused }, 'approved responses without an approval record were denied');
    }
    checkpoint = { ...checkpoint, messages: sealed.messages };
    checkpoint = await runModelLoop({
      ...options,
      spec,
      runId,
      incarnation,
      checkpoint,
      state,
      runTools,
      resolved,
      logger,
      fence,
      span: options.span,
      before: resumeWrite,
      signal: options.signal ? AbortSignal.any([options.signal, attempt.signal]) : attempt.signal,
    });
  }
  await resumeWrite;
  if (checkpoint.pendingApprovals.length > 0) {
    await parkForApprovals({ job, token, checkpoint, dependencies, logger, fence });
    // The children were all done already (decided before the run parked): resume right away.
    return await processRun({ ...options, afterPark: true });
  }
  if (checkpoint.status !== 'completed') {
    checkpoint = { ...checkpoint, status: 'completed', updatedAt: Date.now() };
    await store.write(checkpoint, { fence });
  }
  return resultOf(checkpoint, spec, runTools);
}

async function runModelLoop(options: {
  job: AgentRunJob;
  signal: AbortSignal | undefined;
  dependencies: RunProcessorDependencies;
  spec: RunSpec;
  runId: string;
  incarnation: string;
  checkpoint: RunCheckpoint;
  approvalSecret: Uint8Array;
  state: RunToolState;
  runTools: Awaited<ReturnType<typeof buildRunTools>>;
  resolved: ReturnType<ModelResolver['resolve']>;
  logger: Logger;
  /** A write that must have landed before the first step's checkpoint. */
  before?: Promise<void>;
  fence: RunFence | undefined;
  span: Span;
}): Promise<RunCheckpoint> {
  const { job, spec, runId, incarnation, state, runTools, resolved, logger, dependencies } = options;
  const { store, env } = dependencies;
  let checkpoint = options.checkpoint;
  const baseMessages = checkpoint.messages as ModelMessage[];
  const firstStep = checkpoint.step;
  // The SDK swallows errors thrown by step callbacks; a checkpoint that could not be written must
  // stop the run instead, so that no step runs without its predecessor being durable.
  const stop = new AbortController();
  let checkpointError: unknown;
  const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
  const system =
    [spec.assistant.system, runTools.unavailablePrompt, runTools.deferredPrompt].filter(Boolean).join('\n\n') ||
    undefined;
  // Step spans hang under the attempt (not under the SDK's generateText span they finish in), and
  // the approvals a step asks for carry its context, so the wait and the decision join the trace.
  // A step's span opens when its first piece of work starts (the model call, or the approved tool
  // calls a resume executes first) and ends once its checkpoint is written; the SDK's model and
  // tool call spans of the step hang under it.
  const attemptContext = activeContext();
  const traced = options.span.isRecording();
  let openStep: { span: Span; context: Context } | undefined;
  const currentStep = () => {
    if (!openStep) {
      const span = agentqTracer().startSpan(
        'agentq.run.step',
        { attributes: { 'agentq.run.id': runId } },
        attemptContext,
      );
      openStep = { span, context: contextWithSpan(attemptContext, span) };
    }
    return openStep;
  };
  const tracer = reparentingTracer({
    tracer: agentqTracer(),
    parentOf: (name) => (stepScopedSpans.has(name) ? currentStep().context : undefined),
  });
  const perStep = limitToolCallsPerStep(runTools.tools, {
    maxCalls: dependencies.config.maxToolCallsPerStep ?? DEFAULT_MAX_TOOL_CALLS_PER_STEP,
  });
  const cached = markPromptCache({
    provider: resolved.model.provider,
    system,
    tools: fitToolResultsToModel(perStep.tools, resolved.model.provider),
  });

  const onStepFinish = async (step: StepResult<ToolSet>) => {
    const stepSpan = currentStep().span;
    openStep = undefined;
    stepSpan.setAttributes({
      'agentq.step': firstStep + step.stepNumber,
      'agentq.step.finish_reason': step.finishReason,
      'agentq.step.tool_calls': step.toolCalls.length,
    });
    const stepTrace = traced ? traceContextFromSpanContext(stepSpan.spanContext()) : undefined;
    try {
      await options.before;
      const now = Date.now();
      const requests = step.content.flatMap((part) =>
        part.type === 'tool-approval-request' ? [{ sdkId: part.approvalId, toolCall: part.toolCall }] : [],
      );
      const idMap = new Map(
        requests.map((request) => [
          request.sdkId,
          approvalIdFor({
            runId,
            incarnation,
            toolCallId: request.toolCall.toolCallId,
            shardIndex: dependencies.shardIndex,
          }),
        ]),
      );
      const messages = [...baseMessages, ...renameApprovals(step.response.messages, idMap)];
      const timeoutMs = spec.approval.timeoutMs ?? dependencies.config.approvalTimeoutMs;
      const pending: PendingApproval[] = [];
      const approvalJobs: ApprovalJob[] = [];
      for (const request of requests) {
        const approvalId = idMap.get(request.sdkId) as string;
        const argsDigest = digestOf(request.toolCall.input ?? {});
        const schemaDigest = runTools.schemaDigests.get(request.toolCall.toolName) ?? digestOf(null);
        pending.push({
          approvalId,
          toolCallId: request.toolCall.toolCallId,
          toolName: request.toolCall.toolName,
          argsDigest,
          schemaDigest,
          childAdded: false,
        });
        const toolId = runTools.wireNames[request.toolCall.toolName];
        const serverId = toolId === undefined ? undefined : parseToolId(toolId)?.serverId;
        // What the person is shown, and all that the call is compared with before it executes.
        approvalJobs.push({
          approvalId,
          runId,
          incarnation,
          toolCallId: request.toolCall.toolCallId,
          toolName: request.toolCall.toolName,
          ...(serverId ? { serverId } : {}),
          input: request.toolCall.input ?? {},
          argsDigest,
          schemaDigest,
          requestedAt: now,
          expiresAt: now + timeoutMs,
          ...(stepTrace ? { trace: stepTrace } : {}),
        });
      }
      // A step without tool calls, or the last allowed one, ends the loop: mark the run completed
      // in this same write instead of paying another round trip for it.
      const final =
        pending.length === 0 &&
        (step.toolCalls.length === 0 || firstStep + step.stepNumber + 1 >= spec.assistant.maxSteps);
      const executed = new Set(answeredToolCallIds(messages));
      for (const approval of pending) executed.delete(approval.toolCallId);
      checkpoint = {
        ...checkpoint,
        messages: messages as RunCheckpoint['messages'],
        allowedNames: state.allowedNames,
        inspectedNames: state.inspectedNames,
        step: firstStep + step.stepNumber + 1,
        steps: [
          ...checkpoint.steps,
          {
            step: firstStep + step.stepNumber,
            text: step.text,
            finishReason: step.finishReason,
            toolCalls: step.toolCalls.map((call) => call.toolCallId),
            usage: usageOf(step.usage),
          },
        ],
        toolCalls: summarizeToolCalls(messages),
        usage: addUsage(checkpoint.usage, usageOf(step.usage)),
        pendingApprovals: pending,
        executedToolCallIds: [...executed],
        status: pending.length > 0 ? 'waiting-approval' : final ? 'completed' : 'running',
        updatedAt: now,
      };
      // Checkpoint first, with the approval records in the same transaction: from here on a
      // decision can be recorded even though no approval job exists yet.
      await store.write(checkpoint, {
        fence: options.fence,
        sideWrites:
          approvalJobs.length === 0
            ? undefined
            : (transaction) =>
                queueApprovalRegistrations(transaction as unknown as EvalQueue, {
                  prefix: dependencies.prefix,
                  requests: approvalJobs,
                }),
      });
      crashPoint('after-step', runId, env);
      if (pending.length > 0) crashPoint('after-checkpoint', runId, env);
      // The final step needs no progress report: the job's completion says it all.
      if (!final) {
        reportProgress(job, logger, {
          step: checkpoint.step,
          lastTool: step.toolCalls.at(-1)?.toolName ?? lastToolOf(checkpoint),
          status: checkpoint.status,
        });
      }
      stepSpan.setAttributes({
        'agentq.step.approvals_requested': pending.length,
        'agentq.run.status': checkpoint.status,
      });
    } catch (error) {
      recordSpanError(stepSpan, error);
      checkpointError ??= error;
      stop.abort(error);
    } finally {
      stepSpan.end();
    }
  };

  try {
    await generateText({
      model: resolved.model,
      system: cached.system,
      messages: baseMessages,
      tools: cached.tools,
      prepareStep: () => {
        perStep.startStep();
        return undefined;
      },
      stopWhen: stepCountIs(spec.assistant.maxSteps - firstStep),
      experimental_repairToolCall: createRunToolCallRepair({ model: resolved.model, logger, abortSignal: signal }),
      abortSignal: signal,
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
      onStepFinish,
      // Model calls and tool calls as spans of this attempt. Prompts, arguments, results and
      // outputs only with AGENTQ_TRACE_ARGUMENTS: they may hold anything, secrets included.
      experimental_telemetry: {
        isEnabled: traced,
        tracer,
        functionId: 'agentq.run',
        metadata: { runId },
        recordInputs: dependencies.config.traceArguments === true,
        recordOutputs: dependencies.config.traceArguments === true,
      },
    });
  } catch (error) {
    // A step cut short (an abort, a failed model call) never reached onStepFinish.
    if (openStep) recordSpanError(openStep.span, checkpointError ?? error);
    throw checkpointError ?? error;
  } finally {
    openStep?.span.end();
    openStep = undefined;
  }
  if (checkpointError) throw checkpointError;
  return checkpoint;
}

/**
 * Progress is advisory (the checkpoint is the record), so it is sent without making the run wait
 * for it; a failure is only logged.
 */
function reportProgress(job: AgentRunJob, logger: Logger, progress: RunProgress): void {
  job.updateProgress(progress).catch((error: Error) => {
    logger.debug({ error: error.message }, 'progress update failed');
  });
}

function renameApprovals(messages: readonly ModelMessage[], idMap: ReadonlyMap<string, string>): ModelMessage[] {
  if (idMap.size === 0) return [...messages];
  return messages.map((message) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return message;
    return {
      ...message,
      content: message.content.map((part) =>
        part.type === 'tool-approval-request' ? renamedRequest(part, idMap) : part,
      ),
    };
  });
}

/**
 * A request under the run's deterministic approval id. The SDK's signature covered its own id, so
 * it is dropped: requests are signed again from the approval records when the run resumes.
 */
function renamedRequest<T extends { approvalId: string; signature?: string }>(
  part: T,
  idMap: ReadonlyMap<string, string>,
): Omit<T, 'signature'> {
  const { signature: _signature, ...request } = part;
  return { ...request, approvalId: idMap.get(part.approvalId) ?? part.approvalId };
}

function freshCheckpoint(runId: string, incarnation: string, spec: RunSpec): RunCheckpoint {
  const messages: RunCheckpoint['messages'] =
    'prompt' in spec.input
      ? [{ role: 'user', content: spec.input.prompt }]
      : (spec.input.messages as RunCheckpoint['messages']);
  return {
    runId,
    incarnation,
    messages,
    allowedNames: [],
    wireNames: {},
    inspectedNames: [],
    step: 0,
    steps: [],
    toolCalls: [],
    usage: { ...zeroUsage },
    catalogVersion: {},
    pendingApprovals: [],
    executedToolCallIds: [],
    status: 'running',
    warnings: [],
    updatedAt: Date.now(),
  };
}

function mergeWarnings(known: readonly RunWarning[], found: readonly RunWarning[]): RunWarning[] {
  const out = [...known];
  for (const warning of found) {
    if (!out.some((each) => each.code === warning.code && each.serverId === warning.serverId)) out.push(warning);
  }
  return out;
}

function resultOf(
  checkpoint: RunCheckpoint,
  spec: RunSpec,
  runTools?: Awaited<ReturnType<typeof buildRunTools>>,
): RunResult {
  const last = checkpoint.steps.at(-1);
  return runResultSchema.parse({
    runId: checkpoint.runId,
    text: last?.text ?? '',
    finishReason: last
      ? checkpoint.step >= spec.assistant.maxSteps && last.finishReason === 'tool-calls'
        ? 'max-steps'
        : last.finishReason
      : 'stop',
    steps: checkpoint.steps,
    toolCalls: checkpoint.toolCalls,
    usage: checkpoint.usage,
    catalogVersion: checkpoint.catalogVersion,
    tools: runTools
      ? {
          inline: Object.keys(runTools.tools).length - (runTools.strategy === 'native' ? runTools.deferred.length : 0),
          deferred: runTools.deferred.length,
          inlineTokens: runTools.inlineTokens,
          deferredTokens: runTools.deferredTokens,
          ...(runTools.deferred.length > 0 ? { exposition: runTools.strategy } : {}),
        }
      : undefined,
    warnings: checkpoint.warnings.length > 0 ? checkpoint.warnings : undefined,
  });
}

function lastToolOf(checkpoint: RunCheckpoint): string | null {
  return checkpoint.toolCalls.at(-1)?.toolName ?? null;
}

function usageOf(usage: StepResult<ToolSet>['usage']): Usage {
  const inputTokens = usage.inputTokens ?? 0;
  const outputTokens = usage.outputTokens ?? 0;
  const cacheRead = usage.inputTokenDetails?.cacheReadTokens;
  const cacheWrite = usage.inputTokenDetails?.cacheWriteTokens;
  return {
    inputTokens,
    outputTokens,
    totalTokens: usage.totalTokens ?? inputTokens + outputTokens,
    // Only providers that report prompt caching add these, so a run without them stays as before.
    ...(cacheRead ? { cacheReadInputTokens: cacheRead } : {}),
    ...(cacheWrite ? { cacheCreationInputTokens: cacheWrite } : {}),
  };
}

function addUsage(a: Usage, b: Usage): Usage {
  const sum: Usage = {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
  if (a.cacheReadInputTokens !== undefined || b.cacheReadInputTokens !== undefined) {
    sum.cacheReadInputTokens = (a.cacheReadInputTokens ?? 0) + (b.cacheReadInputTokens ?? 0);
  }
  if (a.cacheCreationInputTokens !== undefined || b.cacheCreationInputTokens !== undefined) {
    sum.cacheCreationInputTokens = (a.cacheCreationInputTokens ?? 0) + (b.cacheCreationInputTokens ?? 0);
  }
  return sum;
}
