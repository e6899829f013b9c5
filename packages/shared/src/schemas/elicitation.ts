import { z } from 'zod';
import { decisionPathSchema, RECORD_ID_MAX_LENGTH } from './approval.js';

/**
 * One value of an accepted elicitation form: the MCP specification restricts requested schemas to
 * flat objects of primitive fields (strings, numbers, booleans, and lists of enum strings).
 */
export const elicitationValueSchema = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

/** An answer to an `elicitation/create` request, as MCP defines it. */
export const elicitationResponseSchema = z.discriminatedUnion('action', [
  z.strictObject({ action: z.literal('accept'), content: z.record(z.string(), elicitationValueSchema) }),
  z.strictObject({ action: z.literal('decline') }),
  z.strictObject({ action: z.literal('cancel') }),
]);

/**
 * A pending question of an MCP server to a person, asked during one tool call of one run (server
 * policy `ask`). Its id is also the id of the run's `approvals`-queue child that parks the run.
 */
export const elicitationRequestSchema = z.strictObject({
  elicitationId: z.string().min(1).max(RECORD_ID_MAX_LENGTH),
  runId: z.string().min(1),
  /** The run's incarnation (`runIncarnationOf`): an answer binds to it. */
  incarnation: z.string().min(1),
  /** The tool call that was running when the server asked. */
  toolCallId: z.string().min(1),
  /** The tool's wire name, as the model called it. */
  toolName: z.string().min(1),
  serverId: z.string().min(1),
  /** Digest of the canonical tool arguments. */
  argsDigest: z.string().min(1),
  /** Digest of the canonical `{ message, requestedSchema }`: what the recorded answer is keyed by. */
  digest: z.string().min(1),
  /** The server's message to the person. */
  message: z.string(),
  /** The requested schema (an object of flat primitive fields). */
  requestedSchema: z.record(z.string(), z.unknown()),
  requestedAt: z.number().int().nonnegative(),
  expiresAt: z.number().int().nonnegative(),
});

/** The answer as recorded in `P:elicitation.<elicitationId>`. */
export const elicitationResponseRecordSchema = z.strictObject({
  response: elicitationResponseSchema,
  /** Who answered: the API token's name, the OS user of the CLI, or `agentq:expired`. */
  answeredBy: z.string().min(1).max(200),
  answeredAt: z.number().int().nonnegative(),
  /** The path of a person's answer; absent when agentq settled it itself (expiry: `cancel`). */
  via: decisionPathSchema.optional(),
});

/** Return value of an elicitation's `approvals`-queue child. */
export const elicitationResultSchema = z.strictObject({
  elicitationId: z.string(),
  action: z.enum(['accept', 'decline', 'cancel']),
  outcome: z.enum(['answer', 'expired']),
});

export type ElicitationValue = z.output<typeof elicitationValueSchema>;
export type ElicitationResponse = z.output<typeof elicitationResponseSchema>;
export type ElicitationRequestRecord = z.output<typeof elicitationRequestSchema>;
export type ElicitationResponseRecord = z.output<typeof elicitationResponseRecordSchema>;
export type ElicitationResult = z.output<typeof elicitationResultSchema>;
