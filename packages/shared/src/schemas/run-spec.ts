import { z } from 'zod';

/** `provider:model`, for example `openai:gpt-4o-mini` or `scripted:demo`. */
export const modelIdSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*:.+$/, 'must look like provider:model, for example openai:gpt-4o-mini');

/** An MCP tool id: `<serverId>:<toolName>`. */
export const mcpToolIdSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]*:.+$/, 'must look like serverId:toolName');

/** One step of the built-in `scripted` test model. */
export const scriptStepSchema = z.union([
  z.strictObject({ text: z.string() }),
  z.strictObject({
    toolCalls: z
      .array(
        z.strictObject({
          toolName: z.string().min(1),
          input: z.unknown().default({}),
        }),
      )
      .min(1),
    text: z.string().optional(),
  }),
]);

/** Model settings passed through to the AI SDK. */
export const modelSettingsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
});

/** The assistant a run uses: model, prompt, tools and limits. */
export const assistantSchema = z.strictObject({
  model: modelIdSchema,
  system: z.string().optional(),
  settings: modelSettingsSchema.default({}),
  /**
   * `manual`: only `mcpServers`. `auto`: every enabled server. `disabled`: none.
   * @default 'manual'
   */
  mcpMode: z.enum(['manual', 'auto', 'disabled']).default('manual'),
  /** Server ids the assistant may use in `manual` mode. */
  mcpServers: z.array(z.string().min(1)).default([]),
  /** Tool ids (`serverId:toolName`) this assistant never gets. */
  disabledTools: z.array(mcpToolIdSchema).default([]),
  /** Context window in tokens; looked up by model, else 32 000. */
  contextWindow: z.number().int().positive().optional(),
  /** @default 10 */
  maxSteps: z.number().int().min(1).max(200).default(10),
  /** Script of the `scripted` model: a test double for demos, dry runs and tests. */
  script: z.array(scriptStepSchema).optional(),
});

/** A chat message given as run input. */
export const inputMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.unknown(),
});

/** Approval policy of a run. */
export const approvalPolicySchema = z.strictObject({
  /**
   * Extra tool names (wire names or `serverId:toolName` ids) that need approval. `*` matches any
   * run of characters, so `mcp__github__*` gates every GitHub tool.
   */
  requireFor: z.array(z.string().min(1)).default([]),
  /** Approval timeout for this run; the config default otherwise. */
  timeoutMs: z.number().int().positive().optional(),
});

/** Payload of an `agent-runs` job. */
export const runSpecSchema = z
  .strictObject({
    assistant: assistantSchema,
    input: z.union([
      z.strictObject({ prompt: z.string().min(1) }),
      z.strictObject({ messages: z.array(inputMessageSchema).min(1) }),
    ]),
    /** Explicit tool ids to use instead of everything the assistant's servers offer. */
    tools: z.array(mcpToolIdSchema).optional(),
    approval: approvalPolicySchema.default({ requireFor: [] }),
    metadata: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])).default({}),
    /** The `scripted` model's script may also be given here; it is moved to `assistant.script`. */
    script: z.array(scriptStepSchema).optional(),
  })
  .superRefine((spec, context) => {
    if (spec.script && spec.assistant.script) {
      context.addIssue({
        code: 'custom',
        path: ['script'],
        message: 'give the script once: script or assistant.script',
      });
    }
    const script = spec.script ?? spec.assistant.script;
    if (spec.assistant.model.startsWith('scripted:') && spec.assistant.model !== 'scripted:demo' && !script) {
      context.addIssue({
        code: 'custom',
        path: ['assistant', 'script'],
        message: 'a scripted model needs a script (only scripted:demo has a built-in one)',
      });
    }
  })
  .transform((value) => {
    const { script, ...spec } = value;
    return script ? { ...spec, assistant: { ...spec.assistant, script } } : spec;
  });

export type RunSpec = z.output<typeof runSpecSchema>;
export type RunSpecInput = z.input<typeof runSpecSchema>;
export type Assistant = z.output<typeof assistantSchema>;
export type ScriptStep = z.output<typeof scriptStepSchema>;
export type ApprovalPolicy = z.output<typeof approvalPolicySchema>;
