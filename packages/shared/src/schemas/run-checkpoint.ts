import { z } from 'zod';
import { runWarningSchema, toolCallRecordSchema, stepRecordSchema, usageSchema } from './run-result.js';

/** A pending approval remembered in the checkpoint while a run is parked. */
export const pendingApprovalSchema = z.strictObject({
  approvalId: z.string(),
  toolCallId: z.string(),
  toolName: z.string(),
  argsDigest: z.string(),
  schemaDigest: z.string(),
  /** Whether the child approval job is known to exist. */
  childAdded: z.boolean().default(false),
});

/**
 * `P:run.<runId>`: everything a run needs to continue in another process after a crash, a stall
 * or an approval pause.
 */
export const runCheckpointSchema = z.strictObject({
  runId: z.string(),
  /**
   * The incarnation of the run that wrote it (`runIncarnationOf`); absent on checkpoints written
   * before incarnations. A checkpoint of another incarnation is an earlier run's and is not resumed.
   */
  incarnation: z.string().optional(),
  /** AI SDK model messages so far (the run's own history, not the system prompt). */
  messages: z.array(z.looseObject({ role: z.string() })),
  allowedNames: z.array(z.string()),
  /**
   * Every MCP tool name the run has shown the model, with the tool id (`serverId:toolName`) it
   * stood for. On resume a tool keeps the name the run already used while that name still means
   * the same tool, even if the store's server set now names it differently.
   */
  wireNames: z.record(z.string(), z.string()).default({}),
  inspectedNames: z.array(z.string()),
  step: z.number().int().nonnegative(),
  steps: z.array(stepRecordSchema).default([]),
  toolCalls: z.array(toolCallRecordSchema).default([]),
  usage: usageSchema,
  catalogVersion: z.record(z.string(), z.string()),
  pendingApprovals: z.array(pendingApprovalSchema).default([]),
  /** Tool call ids whose tool already executed, so a re-run never executes them twice. */
  executedToolCallIds: z.array(z.string()).default([]),
  status: z.enum(['running', 'waiting-approval', 'completed', 'failed']).default('running'),
  /** Warnings of every attempt so far, kept so that a resumed run still reports them. */
  warnings: z.array(runWarningSchema).default([]),
  updatedAt: z.number().int().nonnegative(),
});

export type PendingApproval = z.output<typeof pendingApprovalSchema>;
export type RunCheckpoint = z.output<typeof runCheckpointSchema>;

/**
 * `P:run.<runId>` in the step-log format: the small head of a run, rewritten with every step. Its
 * size depends on the run's tools and pending approvals, never on how many steps it took. The
 * history lives beside it in two append-only lists, `P:run.<runId>:messages` (one model message
 * per item) and `P:run.<runId>:steps` (one {@link stepRecordSchema} per item); the tool calls and
 * executed call ids of {@link runCheckpointSchema} are derived from the messages when read.
 * A value without `format` is a checkpoint of the single-blob format written before the log.
 */
export const runHeadSchema = runCheckpointSchema
  .omit({ messages: true, steps: true, toolCalls: true, executedToolCallIds: true })
  .extend({
    format: z.literal('step-log'),
    /** How many items of the messages list belong to the run (the list is never longer once written). */
    messageCount: z.number().int().nonnegative(),
    /** How many items of the steps list belong to the run. */
    stepCount: z.number().int().nonnegative(),
  });

export type RunHead = z.output<typeof runHeadSchema>;

/**
 * One part of a model message's content: typed, with its text when it is a text part. Other
 * fields (tool results, images, files, provider options) are the model loop's to check: messages
 * older versions wrote must keep loading.
 */
const messagePartSchema = z
  .looseObject({ type: z.string() })
  .refine((part) => part.type !== 'text' || typeof part.text === 'string', {
    message: 'a text part needs a string text',
    path: ['text'],
  });
const messagePartsSchema = z.array(messagePartSchema);

/**
 * One item of `P:run.<runId>:messages`: an AI SDK model message, checked as far as its role and
 * the kind of its content (a string, or parts, as that role allows), so that a damaged item is
 * told apart from a message the model loop refuses. It is checked once per resume, not per step.
 */
export const runLogMessageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: z.string() }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), messagePartsSchema]) }),
  z.looseObject({ role: z.literal('assistant'), content: z.union([z.string(), messagePartsSchema]) }),
  z.looseObject({ role: z.literal('tool'), content: messagePartsSchema }),
]);

/** One item of `P:run.<runId>:steps`. */
export const runLogStepSchema = stepRecordSchema;

/** When a journalled tool call ran, in epoch ms; absent on entries written before timings were kept. */
const toolTimingShape = {
  startedAt: z.number().int().nonnegative().optional(),
  finishedAt: z.number().int().nonnegative().optional(),
};

/**
 * What every journal entry may carry: the tool's wire name, and the run incarnation that wrote it
 * (an entry another incarnation wrote belongs to an earlier run under the same id and is never
 * replayed; entries written before incarnations existed have none).
 */
const journalShape = {
  toolName: z.string().optional(),
  incarnation: z.string().optional(),
};

/**
 * `P:run.<runId>:tool-results`, one field per tool call id: a tool execution remembered so that a
 * re-run replays it instead of executing again, with when it ran. A bare claim is a call an
 * attempt started and has not recorded a result for (yet): it may have run or not.
 */
export const recordedToolResultSchema = z.union([
  z.strictObject({ ok: z.literal(true), output: z.unknown(), ...journalShape, ...toolTimingShape }),
  z.strictObject({ ok: z.literal(false), error: z.string(), ...journalShape, ...toolTimingShape }),
  z.strictObject({
    claimedBy: z.string(),
    ...journalShape,
    startedAt: toolTimingShape.startedAt,
    /**
     * The elicitation whose answer the claimed call was sent again with (the call an earlier
     * attempt parked on that question): once set, a later attempt finding the claim without a
     * result replays the call as interrupted instead of sending it again.
     */
    answeredElicitation: z.string().optional(),
  }),
]);

export type RecordedToolResult = z.output<typeof recordedToolResultSchema>;
