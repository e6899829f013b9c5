import { z } from 'zod';

/** Token usage of a run or step. */
export const usageSchema = z.strictObject({
  inputTokens: z.number().int().nonnegative().default(0),
  outputTokens: z.number().int().nonnegative().default(0),
  totalTokens: z.number().int().nonnegative().default(0),
  /**
   * Input tokens read from the provider's prompt cache (Anthropic `cache_read_input_tokens`,
   * OpenAI cached tokens), billed at a fraction of the full price. Absent when none were reported.
   */
  cacheReadInputTokens: z.number().int().nonnegative().optional(),
  /** Input tokens written to the prompt cache (Anthropic `cache_creation_input_tokens`). */
  cacheCreationInputTokens: z.number().int().nonnegative().optional(),
});

/** One tool call the model made, with its outcome. */
export const toolCallRecordSchema = z.strictObject({
  toolCallId: z.string(),
  toolName: z.string(),
  input: z.unknown(),
  output: z.unknown().optional(),
  isError: z.boolean().default(false),
  /**
   * Set when the model provider ran the call itself, such as its native tool search: its input
   * and output are the provider's, and no tool of the run executed.
   */
  providerExecuted: z.literal(true).optional(),
  /** Set when the call needed approval. */
  approval: z
    .strictObject({
      approvalId: z.string(),
      approved: z.boolean(),
      reason: z.string().optional(),
    })
    .optional(),
  step: z.number().int().nonnegative(),
});

/** Summary of one model step. */
export const stepRecordSchema = z.strictObject({
  step: z.number().int().nonnegative(),
  text: z.string(),
  finishReason: z.string(),
  toolCalls: z.array(z.string()).default([]),
  usage: usageSchema,
  /**
   * The catalog version (`serverId → version`) of every server whose tools the run had at this
   * step: the tool definitions the model was shown (`agentq catalog <server> --version <v>`).
   * Absent on steps recorded before runs were pinned.
   */
  catalogVersion: z.record(z.string(), z.string()).optional(),
  /** When the step was recorded, in epoch ms (absent on steps recorded before it was kept). */
  at: z.number().int().nonnegative().optional(),
});

/**
 * Something the run could not do as its spec asked, reported beside its result. Today only
 * `MCP_SERVER_UNAVAILABLE`: a server the spec names was removed (`reason: removed`) or turned off
 * (`reason: disabled`) after the run was enqueued, so its tools were missing from the run.
 */
export const runWarningSchema = z.strictObject({
  code: z.literal('MCP_SERVER_UNAVAILABLE'),
  serverId: z.string(),
  reason: z.enum(['removed', 'disabled']),
  message: z.string(),
});

/** Return value of an `agent-runs` job. */
export const runResultSchema = z.strictObject({
  runId: z.string(),
  text: z.string(),
  finishReason: z.string(),
  steps: z.array(stepRecordSchema),
  toolCalls: z.array(toolCallRecordSchema),
  usage: usageSchema,
  /** Catalog versions (`serverId → version`) the run's tools came from. */
  catalogVersion: z.record(z.string(), z.string()),
  /** Tools sent inline versus deferred behind the meta tools. */
  tools: z
    .strictObject({
      inline: z.number().int().nonnegative(),
      deferred: z.number().int().nonnegative(),
      inlineTokens: z.number().int().nonnegative(),
      deferredTokens: z.number().int().nonnegative(),
      /** How the deferred tools reached the model: agentq's meta tools or the provider's search. */
      exposition: z.enum(['meta', 'native']).optional(),
    })
    .optional(),
  /** What the run could not do as asked; absent (or empty) when nothing went missing. */
  warnings: z.array(runWarningSchema).optional(),
});

export type Usage = z.output<typeof usageSchema>;
export type ToolCallRecord = z.output<typeof toolCallRecordSchema>;
export type StepRecord = z.output<typeof stepRecordSchema>;
export type RunResult = z.output<typeof runResultSchema>;
export type RunWarning = z.output<typeof runWarningSchema>;
