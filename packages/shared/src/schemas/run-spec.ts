import { z } from 'zod';
import { runIncarnationSchema } from '../runs/run-incarnation.js';
import { traceContextSchema } from '../telemetry/trace-context.js';
import { findProvenanceIssues } from './input-message-provenance.js';
import {
  hasNativeToolSearch,
  isModelProvider,
  MODEL_PROVIDERS,
  NATIVE_TOOL_SEARCH_PROVIDERS,
  TOOL_EXPOSITIONS,
} from './model-providers.js';

/** The longest approval timeout a run may ask for: a year, so every expiry stays a safe integer. */
export const MAX_APPROVAL_TIMEOUT_MS = 365 * 24 * 3600 * 1000;

/**
 * `provider:model`, for example `openai:gpt-4o-mini` or `scripted:demo`. The provider must be one
 * of {@link MODEL_PROVIDERS}; the model name must be printable and without spaces. Whether the
 * provider actually serves that model is only known when the run calls it.
 */
export const modelIdSchema = z
  .string()
  .max(256, { error: (issue) => limitMessage('characters', (issue.input as string).length, 256) })
  // eslint-disable-next-line no-control-regex -- control characters are what the class refuses
  .regex(/^[a-z][a-z0-9-]*:[^\s\u0000-\u001f\u007f]+$/, 'must look like provider:model, for example openai:gpt-4o-mini')
  // An id without a provider part already has the issue above; one is enough.
  .refine((id) => !/^[a-z][a-z0-9-]*:/.test(id) || isModelProvider(id.slice(0, id.indexOf(':'))), {
    error: (issue) =>
      `unknown model provider "${String(issue.input).slice(0, String(issue.input).indexOf(':')).slice(0, 40)}"; use one of ${MODEL_PROVIDERS.join(', ')}`,
  });

/** An MCP tool id: `<serverId>:<toolName>`. */
export const mcpToolIdSchema = z
  .string()
  .max(256, { error: (issue) => limitMessage('characters', (issue.input as string).length, 256) })
  .regex(/^[a-z0-9][a-z0-9_-]*:.+$/, 'must look like serverId:toolName');

/** One step of the built-in `scripted` test model. */
/** How long a scripted step takes, like a real model's latency (chaos runs and benchmarks). */
const scriptDelaySchema = z.number().int().min(0).max(60_000).optional();

export const scriptStepSchema = z.union([
  z.strictObject({ text: z.string(), delayMs: scriptDelaySchema }),
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
    delayMs: scriptDelaySchema,
  }),
]);

/** Names a knowledge base may have: a lowercase slug of at most 63 characters. */
export const KNOWLEDGE_BASE_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** The name of a knowledge base, as runs, `kb_search` and the `kb-ingest` jobs spell it. */
export const knowledgeBaseNameSchema = z
  .string()
  .regex(
    KNOWLEDGE_BASE_NAME_PATTERN,
    'must be 1-63 lowercase letters, digits, "-" or "_", starting with a letter or digit',
  );

/** Web search providers `web_search` can use. */
export const webSearchProviderSchema = z.enum(['searxng', 'brave', 'tavily']);

/** Most knowledge bases one run may name. */
const maxKnowledgeBases = 64;

/**
 * Assistant settings: the model settings passed through to the AI SDK, and the switches of the
 * builtin tools. Every builtin tool is off unless its setting turns it on.
 */
export const modelSettingsSchema = z.strictObject({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  maxOutputTokens: z.number().int().positive().optional(),
  seed: z.number().int().optional(),
  /**
   * How deferred tools reach the model: `meta` (agentq's `tool_search`, `tool_inspect`,
   * `tool_invoke`), `native` (the provider's own tool search with `defer_loading` tools; Anthropic
   * and OpenAI only) or `auto` (native where the provider has it, else meta).
   * @default 'auto'
   */
  toolExposition: z.enum(TOOL_EXPOSITIONS).optional(),
  /**
   * Gives the run `web_search`. `{}` uses the deployment's default provider (SearXNG when
   * `AGENTQ_SEARXNG_URL` is set); `{ provider }` picks one. `false` or absent: no `web_search`.
   */
  webSearch: z.union([z.strictObject({ provider: webSearchProviderSchema.optional() }), z.literal(false)]).optional(),
  /** Gives the run `web_fetch`. @default false */
  webFetch: z.boolean().optional(),
  /** Knowledge bases the run may read with `kb_search` and `kb_list`; none means no `kb_*` tools. */
  knowledgeBases: z
    .array(knowledgeBaseNameSchema)
    .max(maxKnowledgeBases, {
      error: (issue) => limitMessage('knowledge bases', (issue.input as unknown[]).length, maxKnowledgeBases),
    })
    .optional(),
  /**
   * Code mode: gives the run `tool_exec`, which runs a JavaScript script that calls the run's tools
   * in a sandbox and returns only what the script returns. Takes effect only where the operator
   * allows it (`AGENTQ_CODE_MODE=allowed`). @default false
   */
  codeMode: z.boolean().optional(),
});

/**
 * Size and count limits of a run spec. A producer, the REST API and the worker check the same
 * limits, so a spec the client accepts is never refused later; every refusal names the limit and
 * the value found.
 */
export interface RunSpecLimits {
  /**
   * Largest input, in bytes of its JSON form (UTF-8): the prompt or the messages, together with
   * the system prompt and a scripted model's script. Checkpoints rewrite the messages on every
   * step, so this also bounds each checkpoint write. `AGENTQ_MAX_INPUT_BYTES`.
   * @default 262144 (256 KB)
   */
  maxInputBytes: number;
  /** Most `assistant.mcpServers`. `AGENTQ_MAX_MCP_SERVERS`. @default 200 */
  maxMcpServers: number;
  /** Most tool ids in `tools` and in `assistant.disabledTools`, each. @default 500 */
  maxToolIds: number;
  /** Most `approval.requireFor` patterns. @default 100 */
  maxPatterns: number;
  /** Longest `approval.requireFor` pattern, in characters. @default 256 */
  maxPatternLength: number;
  /** Most `metadata` entries. @default 64 */
  maxMetadataEntries: number;
  /** Largest `metadata`, in bytes of its JSON form. @default 16384 */
  maxMetadataBytes: number;
}

/** The limits {@link runSpecSchema} checks. */
export const defaultRunSpecLimits: Readonly<RunSpecLimits> = Object.freeze({
  maxInputBytes: 256 * 1024,
  maxMcpServers: 200,
  maxToolIds: 500,
  maxPatterns: 100,
  maxPatternLength: 256,
  maxMetadataEntries: 64,
  maxMetadataBytes: 16 * 1024,
});

/** The run spec limits a deployment configured (`AGENTQ_MAX_INPUT_BYTES`, `AGENTQ_MAX_MCP_SERVERS`). */
export function runSpecLimitsOf(config: { maxInputBytes?: number; maxMcpServers?: number }): Partial<RunSpecLimits> {
  return { maxInputBytes: config.maxInputBytes, maxMcpServers: config.maxMcpServers };
}

/** Longest server id in `assistant.mcpServers` (server ids are short slugs). */
const maxServerIdLength = 128;
/** Longest metadata key. */
const maxMetadataKeyLength = 128;
/** Most steps of a scripted model's script (the step limit of a run is 200). */
const maxScriptSteps = 1000;

function limitMessage(unit: string, value: number, limit: number): string {
  return `has ${value} ${unit}, over the limit of ${limit}`;
}

function cappedArray<T extends z.ZodType>(element: T, limit: number, unit: string) {
  return z.array(element).max(limit, {
    error: (issue) => limitMessage(unit, (issue.input as unknown[]).length, limit),
  });
}

/** UTF-8 bytes of a value's JSON form; `null` when it has none (a cycle, a bigint). */
function jsonBytes(value: unknown): number | null {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? 0 : Buffer.byteLength(text, 'utf8');
  } catch {
    return null;
  }
}

/** A chat message given as run input: a role, and text or an array of typed parts. */
export const inputMessageSchema = z
  .looseObject({
    role: z.enum(['system', 'user', 'assistant', 'tool']),
    content: z.union([z.string(), z.array(z.looseObject({ type: z.string().min(1) }))]),
  })
  .superRefine((message, context) => {
    // The shapes the model loop accepts: a system message is text, a tool message is parts.
    if (message.role === 'system' && typeof message.content !== 'string') {
      context.addIssue({ code: 'custom', path: ['content'], message: 'a system message has text content' });
    }
    if (message.role === 'tool' && typeof message.content === 'string') {
      context.addIssue({ code: 'custom', path: ['content'], message: 'a tool message has an array of parts' });
    }
  });

/** Builds the schema of an approval policy under `limits`. */
function createApprovalPolicySchema(limits: RunSpecLimits) {
  return z.strictObject({
    /**
     * Extra tool names (wire names or `serverId:toolName` ids) that need approval. `*` matches any
     * run of characters, so `mcp__github__*` gates every GitHub tool.
     */
    requireFor: cappedArray(
      z
        .string()
        .min(1)
        .max(limits.maxPatternLength, {
          error: (issue) => limitMessage('characters', (issue.input as string).length, limits.maxPatternLength),
        }),
      limits.maxPatterns,
      'patterns',
    ).default([]),
    /** Approval timeout for this run; the config default otherwise. At most a year. */
    timeoutMs: z
      .number()
      .int()
      .positive()
      .max(MAX_APPROVAL_TIMEOUT_MS, { error: `must be at most ${MAX_APPROVAL_TIMEOUT_MS} ms (a year)` })
      .optional(),
  });
}

/** Builds the schema of an assistant under `limits`. */
function createAssistantSchema(limits: RunSpecLimits) {
  return z.strictObject({
    model: modelIdSchema,
    system: z.string().optional(),
    settings: modelSettingsSchema.default({}),
    /**
     * `manual`: only `mcpServers`. `auto`: every enabled server. `disabled`: none.
     * @default 'manual'
     */
    mcpMode: z.enum(['manual', 'auto', 'disabled']).default('manual'),
    /** Server ids the assistant may use in `manual` mode. */
    mcpServers: cappedArray(
      z
        .string()
        .min(1)
        .max(maxServerIdLength, {
          error: (issue) => limitMessage('characters', (issue.input as string).length, maxServerIdLength),
        }),
      limits.maxMcpServers,
      'servers',
    ).default([]),
    /** Tool ids (`serverId:toolName`) this assistant never gets. */
    disabledTools: cappedArray(mcpToolIdSchema, limits.maxToolIds, 'tool ids').default([]),
    /** Context window in tokens; looked up by model, else 32 000. */
    contextWindow: z.number().int().positive().optional(),
    /** @default 10 */
    maxSteps: z.number().int().min(1).max(200).default(10),
    /** Script of the `scripted` model: a test double for demos, dry runs and tests. */
    script: cappedArray(scriptStepSchema, maxScriptSteps, 'steps').optional(),
  });
}

/** Builds the schema of run metadata under `limits`. */
function createMetadataSchema(limits: RunSpecLimits) {
  return z
    .record(
      z.string().max(maxMetadataKeyLength, {
        error: (issue) => limitMessage('characters', (issue.input as string).length, maxMetadataKeyLength),
      }),
      z.union([z.string(), z.number(), z.boolean(), z.null()]),
    )
    .superRefine((metadata, context) => {
      const entries = Object.keys(metadata).length;
      if (entries > limits.maxMetadataEntries) {
        context.addIssue({
          code: 'custom',
          message: limitMessage('entries', entries, limits.maxMetadataEntries),
          params: { limit: limits.maxMetadataEntries, value: entries },
        });
        return;
      }
      const bytes = jsonBytes(metadata) ?? Number.POSITIVE_INFINITY;
      if (bytes > limits.maxMetadataBytes) {
        context.addIssue({
          code: 'custom',
          message: limitMessage('bytes', bytes, limits.maxMetadataBytes),
          params: { limit: limits.maxMetadataBytes, value: bytes },
        });
      }
    })
    .default({});
}

/**
 * Builds the run spec schema under `limits` (each one defaulted from {@link defaultRunSpecLimits}).
 * A deployment that raises a limit builds its schema once from its configuration and hands the same
 * one to the client, the REST API and the worker.
 */
export function createRunSpecSchema(limits: Partial<RunSpecLimits> = {}) {
  const effective: RunSpecLimits = { ...defaultRunSpecLimits, ...definedOnly(limits) };
  const assistant = createAssistantSchema(effective);
  return z
    .strictObject({
      assistant,
      input: z.union([
        z.strictObject({ prompt: z.string().min(1) }),
        z.strictObject({ messages: z.array(inputMessageSchema).min(1) }),
      ]),
      /** Explicit tool ids to use instead of everything the assistant's servers offer. */
      tools: cappedArray(mcpToolIdSchema, effective.maxToolIds, 'tool ids').optional(),
      // A factory, not a value: zod copies a default value only one level deep, so a value's inner
      // array would be one array shared by every spec parsed without `approval` (and frozen in all
      // of them once `parsedRunSpecSchema` freezes one).
      approval: createApprovalPolicySchema(effective).default(() => ({ requireFor: [] })),
      metadata: createMetadataSchema(effective),
      /** The `scripted` model's script may also be given here; it is moved to `assistant.script`. */
      script: cappedArray(scriptStepSchema, maxScriptSteps, 'steps').optional(),
      /**
       * W3C trace context of the enqueue, set by the producer when tracing is on: every attempt of
       * the run continues this trace. Not part of the run's identity (idempotency ignores it).
       */
      trace: traceContextSchema.optional(),
      /**
       * The run's incarnation (see `runIncarnationSchema`), set by the producer when it enqueues
       * the run; a value a caller gives is replaced. Not part of the run's identity (idempotency
       * ignores it).
       */
      incarnation: runIncarnationSchema.optional(),
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
      const provider = spec.assistant.model.slice(0, spec.assistant.model.indexOf(':'));
      if (spec.assistant.settings.toolExposition === 'native' && !hasNativeToolSearch(provider)) {
        context.addIssue({
          code: 'custom',
          path: ['assistant', 'settings', 'toolExposition'],
          message: `native tool search needs a provider that has one (${NATIVE_TOOL_SEARCH_PROVIDERS.join(', ')}); use auto or meta for ${provider || 'this model'}`,
        });
      }
      checkInputSize(spec, effective.maxInputBytes, context);
      if ('messages' in spec.input) {
        const issues = findProvenanceIssues(spec.input.messages);
        for (const issue of issues) {
          context.addIssue({ code: 'custom', path: ['input', 'messages', ...issue.path], message: issue.message });
        }
        // The worker asks the model only after a message that is not its own: given last, an
        // assistant message would end the run at once, unanswered tool calls and all. (Said only of
        // messages that are otherwise fine, so each problem is reported on its own.)
        const last = spec.input.messages.length - 1;
        if (issues.length === 0 && spec.input.messages[last]?.role === 'assistant') {
          context.addIssue({
            code: 'custom',
            path: ['input', 'messages', last, 'role'],
            message:
              'the last input message may not be an assistant message: the run would end without asking the model',
          });
        }
      }
    })
    .transform((value) => {
      const { script, ...spec } = value;
      return script ? { ...spec, assistant: { ...spec.assistant, script } } : spec;
    });
}

function checkInputSize(
  spec: {
    input: { prompt: string } | { messages: unknown[] };
    assistant: { system?: string; script?: unknown };
    script?: unknown;
  },
  limit: number,
  context: z.RefinementCtx,
): void {
  const inputPath = 'prompt' in spec.input ? ['input', 'prompt'] : ['input', 'messages'];
  const inputBytes = jsonBytes('prompt' in spec.input ? spec.input.prompt : spec.input.messages);
  if (inputBytes === null) {
    context.addIssue({ code: 'custom', path: inputPath, message: 'must be plain JSON data' });
    return;
  }
  const tooBig = (path: (string | number)[], bytes: number, what: string) =>
    context.addIssue({
      code: 'custom',
      path,
      message: `${what} ${limitMessage('bytes', bytes, limit)} (AGENTQ_MAX_INPUT_BYTES)`,
      params: { limit, value: bytes },
    });
  if (inputBytes > limit) return tooBig(inputPath, inputBytes, 'the input');
  const script = spec.script ?? spec.assistant.script;
  const total =
    inputBytes +
    (spec.assistant.system === undefined ? 0 : (jsonBytes(spec.assistant.system) ?? 0)) +
    (script === undefined ? 0 : (jsonBytes(script) ?? Number.POSITIVE_INFINITY));
  if (total > limit) tooBig(['input'], total, 'the input with the system prompt and the script');
}

function definedOnly(limits: Partial<RunSpecLimits>): Partial<RunSpecLimits> {
  return Object.fromEntries(Object.entries(limits).filter(([, value]) => value !== undefined));
}

/** The assistant a run uses: model, prompt, tools and limits (under the default limits). */
export const assistantSchema = createAssistantSchema(defaultRunSpecLimits);

/** Approval policy of a run (under the default limits). */
export const approvalPolicySchema = createApprovalPolicySchema(defaultRunSpecLimits);

/**
 * Payload of an `agent-runs` job, under {@link defaultRunSpecLimits}. Input messages may not
 * carry approval parts or answers to calls they do not show (see `findProvenanceIssues`): a
 * gated tool runs only on the worker's own approval records.
 */
export const runSpecSchema = createRunSpecSchema();

/** A run spec schema, as {@link createRunSpecSchema} builds it. */
export type RunSpecSchema = ReturnType<typeof createRunSpecSchema>;
export type RunSpec = z.output<typeof runSpecSchema>;
export type RunSpecInput = z.input<typeof runSpecSchema>;
export type Assistant = z.output<typeof assistantSchema>;
export type ScriptStep = z.output<typeof scriptStepSchema>;
export type AssistantSettings = z.output<typeof modelSettingsSchema>;
export type WebSearchProviderName = z.output<typeof webSearchProviderSchema>;
export type ApprovalPolicy = z.output<typeof approvalPolicySchema>;
