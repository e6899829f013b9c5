import { z } from 'zod';
import { toolCallRecordSchema, stepRecordSchema, usageSchema } from './run-result.js';

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
  /** AI SDK model messages so far (the run's own history, not the system prompt). */
  messages: z.array(z.looseObject({ role: z.string() })),
  allowedNames: z.array(z.string()),
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
  updatedAt: z.number().int().nonnegative(),
});

export type PendingApproval = z.output<typeof pendingApprovalSchema>;
export type RunCheckpoint = z.output<typeof runCheckpointSchema>;
