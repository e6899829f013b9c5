import { AgentqError, safeParseJson } from '@agentq/shared';
import type { RunFence, RunStore } from '@agentq/store';
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
} from '@ai-sdk/provider';
import { z } from 'zod';
import type { ModelCallTiming } from './native-search-timing.js';

const providerMetadataSchema = z.record(z.string(), z.record(z.string(), z.json())).optional();

// What replaying a part needs. Loose, so that fields a provider adds to a part come back too.
const contentPartSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string(), providerMetadata: providerMetadataSchema }),
  z.looseObject({ type: z.literal('reasoning'), text: z.string(), providerMetadata: providerMetadataSchema }),
  // Only a file given as a string (base64 or a URL) is recorded; see `storable`.
  z.looseObject({
    type: z.literal('file'),
    mediaType: z.string(),
    data: z.string(),
    providerMetadata: providerMetadataSchema,
  }),
  z.looseObject({
    type: z.literal('tool-call'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.string(),
    providerExecuted: z.boolean().optional(),
    dynamic: z.boolean().optional(),
    providerMetadata: providerMetadataSchema,
  }),
  z.looseObject({
    type: z.literal('tool-result'),
    toolCallId: z.string(),
    toolName: z.string(),
    result: z.json(),
    providerMetadata: providerMetadataSchema,
  }),
  z.looseObject({ type: z.literal('tool-approval-request'), approvalId: z.string(), toolCallId: z.string() }),
  z.looseObject({ type: z.literal('source'), sourceType: z.string(), id: z.string() }),
]);

const tokenCount = z.number().optional();

/** One recorded answer: the run incarnation and step it answers, and what the model returned. */
const stepAnswerRecordSchema = z.object({
  incarnation: z.string(),
  step: z.number().int().nonnegative(),
  answer: z.object({
    content: z.array(contentPartSchema),
    finishReason: z.object({
      unified: z.enum(['stop', 'length', 'content-filter', 'tool-calls', 'error', 'other']),
      raw: z.string().optional(),
    }),
    usage: z.object({
      inputTokens: z.object({ total: tokenCount, noCache: tokenCount, cacheRead: tokenCount, cacheWrite: tokenCount }),
      outputTokens: z.object({ total: tokenCount, text: tokenCount, reasoning: tokenCount }),
      raw: z.record(z.string(), z.json()).optional(),
    }),
    providerMetadata: providerMetadataSchema,
    response: z
      .object({ id: z.string().optional(), modelId: z.string().optional(), timestamp: z.iso.datetime().optional() })
      .optional(),
  }),
});

/** A recorded model answer, validated: see {@link parseStepAnswer}. */
export type StepAnswerRecord = z.output<typeof stepAnswerRecordSchema>;

/**
 * The record of `result`, the model's answer for run step `step`, as stored: its content parts,
 * finish reason, usage, provider metadata and response id, model id and time. The request and
 * response bodies and headers are left out. `undefined` when a part cannot be stored as JSON as it
 * is (a file given as bytes): that step is then not recorded, and a re-run asks the model again.
 */
export function stepAnswerRecord(options: {
  incarnation: string;
  step: number;
  result: LanguageModelV3GenerateResult;
}): string | undefined {
  const { result } = options;
  if (!result.content.every(storable)) return undefined;
  const response = result.response;
  return JSON.stringify({
    incarnation: options.incarnation,
    step: options.step,
    answer: {
      content: result.content,
      finishReason: result.finishReason,
      usage: result.usage,
      providerMetadata: result.providerMetadata,
      response: response && {
        id: response.id,
        modelId: response.modelId,
        timestamp: response.timestamp?.toISOString(),
      },
    },
  });
}

function storable(part: LanguageModelV3Content): boolean {
  return part.type !== 'file' || typeof part.data === 'string';
}

/**
 * A stored answer record, validated. One that does not parse fails the run with
 * `RUN_STATE_CORRUPT`: without it, a re-run would ask the model again and could repeat a tool
 * call whose result is journalled under an id the new answer does not use.
 */
export function parseStepAnswer(runId: string, text: string): StepAnswerRecord {
  const parsed = safeParseJson(text, stepAnswerRecordSchema, `step answer of run ${runId}`);
  if (parsed.success) return parsed.data;
  throw new AgentqError({
    code: 'RUN_STATE_CORRUPT',
    message: `the recorded model answer of run ${runId} is unreadable: ${parsed.error.message}`,
  });
}

/** The model's answer as the SDK got it when it was recorded. */
export function reviveStepAnswer(record: StepAnswerRecord): LanguageModelV3GenerateResult {
  const { answer } = record;
  const response = answer.response;
  return {
    content: answer.content as LanguageModelV3Content[],
    finishReason: { unified: answer.finishReason.unified, raw: answer.finishReason.raw },
    usage: answer.usage as LanguageModelV3GenerateResult['usage'],
    ...(answer.providerMetadata === undefined ? {} : { providerMetadata: answer.providerMetadata }),
    ...(response === undefined
      ? {}
      : {
          response: {
            id: response.id,
            modelId: response.modelId,
            timestamp: response.timestamp === undefined ? undefined : new Date(response.timestamp),
          },
        }),
    warnings: [],
  };
}

/** Options of {@link StepAnswers}. */
export interface StepAnswersOptions {
  store: Pick<RunStore, 'recordStepAnswer'>;
  runId: string;
  incarnation: string;
  fence: RunFence | undefined;
  /** The answer recorded for the run's step in flight, read with the checkpoint. @default none */
  recorded?: StepAnswerRecord;
}

/**
 * Records the model's answer for each run step that calls tools before those calls run, and
 * replays it on a re-run instead of asking the model again. Tool results are journalled by tool
 * call id (`recordToolExecutions`), but a real model makes up new ids each time it answers: a
 * worker that died after a tool's result was journalled and before its step's checkpoint would,
 * asked again, get new ids, find nothing journalled and run the tool again. The replayed answer
 * keeps the ids, so the journal answers those calls.
 *
 * One record per run (the step in flight), replaced by the next step that calls tools and bound
 * to its run step and incarnation: it is replayed for that step only, and at most once per
 * attempt. Costs one fenced write per step that calls tools, and no read (the attempt reads the
 * record with its checkpoint). The loop sets {@link StepAnswers.step} before each model call.
 */
export class StepAnswers {
  /** The run step the next model call answers. */
  step: number | undefined;
  private recorded: StepAnswerRecord | undefined;

  constructor(private readonly options: StepAnswersOptions) {
    const recorded = options.recorded;
    this.recorded = recorded?.incarnation === options.incarnation ? recorded : undefined;
  }

  /**
   * When the last model request was sent and answered (a replayed answer: at once); the answer's
   * record write after it is not counted. A provider's native tool search has no timing of its
   * own, so its span and journal entry take this one.
   */
  lastCall: ModelCallTiming | undefined;

  /** `model`, its answers recorded and replayed (and its requests timed, see {@link lastCall}). */
  wrap(model: LanguageModelV3): LanguageModelV3 {
    return new AnsweredModel(model, this);
  }

  /** One model request of the loop: the recorded answer when it is this step's, else the model's. */
  async generate(
    model: LanguageModelV3,
    callOptions: LanguageModelV3CallOptions,
  ): Promise<LanguageModelV3GenerateResult> {
    const step = this.step;
    const recorded = this.recorded;
    const startedAt = Date.now();
    if (recorded !== undefined && recorded.step === step) {
      this.recorded = undefined;
      this.lastCall = { startedAt, finishedAt: startedAt };
      return reviveStepAnswer(recorded);
    }
    let result: LanguageModelV3GenerateResult;
    try {
      result = await model.doGenerate(callOptions);
    } finally {
      this.lastCall = { startedAt, finishedAt: Date.now() };
    }
    if (step !== undefined && callsTools(result)) await this.record(step, result);
    return result;
  }

  private async record(step: number, result: LanguageModelV3GenerateResult): Promise<void> {
    const { runId, incarnation } = this.options;
    const record = stepAnswerRecord({ incarnation, step, result });
    if (record === undefined) return;
    await this.options.store.recordStepAnswer({ runId, record, fence: this.options.fence });
  }
}

/** Whether an answer holds a tool call this worker executes (a provider's own calls run there). */
function callsTools(result: LanguageModelV3GenerateResult): boolean {
  return result.content.some((part) => part.type === 'tool-call' && part.providerExecuted !== true);
}

/**
 * A run's model seen through its {@link StepAnswers}. Its methods live on the prototype: a parked
 * run holds one small object for it, not a wrapped model with closures of its own.
 */
class AnsweredModel implements LanguageModelV3 {
  readonly specificationVersion = 'v3' as const;

  constructor(
    private readonly model: LanguageModelV3,
    private readonly answers: StepAnswers,
  ) {}

  get provider(): string {
    return this.model.provider;
  }

  get modelId(): string {
    return this.model.modelId;
  }

  get supportedUrls(): LanguageModelV3['supportedUrls'] {
    return this.model.supportedUrls;
  }

  doGenerate(callOptions: LanguageModelV3CallOptions): Promise<LanguageModelV3GenerateResult> {
    return this.answers.generate(this.model, callOptions);
  }

  doStream(callOptions: LanguageModelV3CallOptions): ReturnType<LanguageModelV3['doStream']> {
    return this.model.doStream(callOptions);
  }
}
