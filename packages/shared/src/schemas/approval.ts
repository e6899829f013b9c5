import { z } from 'zod';
import { traceContextSchema } from '../telemetry/trace-context.js';

/**
 * Longest approval or elicitation id accepted. Generated ids are `appr-<digest>` or
 * `appr-r<shard>-<digest>` (`elic-` for elicitations; see `approvalIdFor`), at most 42 characters.
 */
export const RECORD_ID_MAX_LENGTH = 200;

/**
 * An approval or elicitation id given from outside (a decision, an answer, a job): the characters
 * generated ids are made of, and at most {@link RECORD_ID_MAX_LENGTH} of them, so that a bad id is
 * refused without being copied into an error, a job's failed reason or a log line.
 */
export const recordIdSchema = z
  .string()
  .min(1)
  .max(RECORD_ID_MAX_LENGTH)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, "_", "." and "-" only');

/**
 * Data of one `approvals` job, and the `request` of its record: what the approver sees, and what a
 * gated call is compared with before it executes. An approval only ever lets through the call this
 * describes: same run incarnation, tool wire name, server, argument digest and schema digest.
 */
export const approvalJobSchema = z.strictObject({
  approvalId: z.string().min(1).max(RECORD_ID_MAX_LENGTH),
  runId: z.string().min(1),
  /**
   * The run's incarnation (`runIncarnationOf`). Absent on requests recorded before approvals were
   * bound to it: those can no longer let a call through.
   */
  incarnation: z.string().min(1).optional(),
  toolCallId: z.string().min(1),
  /** The tool's wire name, as the model called it. */
  toolName: z.string().min(1),
  /** The MCP server the tool belongs to; absent for builtin tools. */
  serverId: z.string().min(1).optional(),
  /** Arguments as shown to the approver. */
  input: z.unknown(),
  /** Digest of the canonical arguments. */
  argsDigest: z.string().min(1),
  /** Digest of the tool's input schema when the approval was requested. */
  schemaDigest: z.string().min(1),
  requestedAt: z.number().int().nonnegative(),
  expiresAt: z.number().int().nonnegative(),
  /** W3C trace context of the run step that asked, so the wait and the decision join the run's trace. */
  trace: traceContextSchema.optional(),
});

/**
 * Through which path a decision arrived: the REST API, the admin inbox, the CLI, the client
 * library called directly, or a job on the `decisions` queue.
 */
export const decisionPathSchema = z.enum(['rest', 'inbox', 'cli', 'client', 'queue']);

/** Input of `decide`. */
export const decisionInputSchema = z.strictObject({
  approvalId: recordIdSchema,
  approved: z.boolean(),
  /** A note from the person deciding; shown to the model. */
  reason: z.string().max(2_000).optional(),
  /** Who decided: the API token's name, the OS user of the CLI, or the service sending the job. */
  decidedBy: z.string().min(1).max(200),
  /** @default 'client' */
  via: decisionPathSchema.optional(),
});

/** A decision as recorded in `P:approval.<approvalId>`. */
export const decisionRecordSchema = z.strictObject({
  approved: z.boolean(),
  reason: z.string().optional(),
  decidedBy: z.string(),
  decidedAt: z.number().int().nonnegative(),
  /** The path of a person's decision; absent on outcomes agentq settled itself (expiry, cancel). */
  via: decisionPathSchema.optional(),
});

/** Return value of an `approvals` job: the decision, or a denial when it expired. */
export const approvalResultSchema = z.strictObject({
  approvalId: z.string(),
  approved: z.boolean(),
  reason: z.string().optional(),
  decidedBy: z.string().optional(),
  decidedAt: z.number().int().nonnegative().optional(),
  via: decisionPathSchema.optional(),
  /** `decision`, `expired`, or `no-decision` (promoted without a recorded decision: denied). */
  outcome: z.enum(['decision', 'expired', 'no-decision']),
});

export type ApprovalJob = z.output<typeof approvalJobSchema>;
export type DecisionInput = z.output<typeof decisionInputSchema>;
export type DecisionPath = z.output<typeof decisionPathSchema>;
export type DecisionRecord = z.output<typeof decisionRecordSchema>;
export type ApprovalResult = z.output<typeof approvalResultSchema>;
