import { silentLogger, type Logger } from '@agentq/shared';
import {
  generateText,
  InvalidToolInputError,
  jsonSchema,
  NoSuchToolError,
  Output,
  type JSONSchema7,
  type LanguageModel,
  type Experimental_DownloadFunction as DownloadFunction,
  type Tool,
  type ToolCallRepairFunction,
  type ToolSet,
} from 'ai';
import { validateToolInput } from '../schema/validate-tool-input.js';

/** Options of {@link createToolCallRepair}. */
export interface CreateToolCallRepairOptions {
  /** The run's own model; the one follow-up call goes to it. */
  model: LanguageModel;
  /** @default a silent logger */
  logger?: Logger;
  /** Abort signal of the run, passed to the follow-up call. */
  abortSignal?: AbortSignal;
  /**
   * Told of every call the repair gave up on, which the model then gets back as a tool error: a
   * call of a tool the request did not offer (`unknown-tool`), or input no fix made valid
   * (`invalid-input`). These are the cases worth a better repair later.
   * @default none
   */
  onCandidate?: (candidate: ToolCallRepairCandidate) => void;
  /**
   * Downloads the image and file URLs of the messages that the model does not read itself, for the
   * follow-up call: give it the run's own download, so that the follow-up call fetches through the
   * same guard, under the same byte cap, and not again. Without it nothing is fetched: where the
   * messages hold such a URL, the follow-up call fails and the repair gives up.
   * @default refuse every download
   */
  download?: DownloadFunction;
}

/** A tool call the repair could not fix (see `CreateToolCallRepairOptions.onCandidate`). */
export interface ToolCallRepairCandidate {
  toolCallId: string;
  toolName: string;
  reason: 'unknown-tool' | 'invalid-input';
}

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** Inputs worth trying without a model: double-encoded JSON, and an `{ arguments }` envelope. */
function cheapCandidates(input: string, schema: JSONSchema7): unknown[] {
  const out: unknown[] = [];
  let value: unknown = input;
  // Up to two layers of string encoding: `"{\"a\":1}"` and `"\"{\\\"a\\\":1}\""`.
  for (let layer = 0; layer < 3 && typeof value === 'string'; layer += 1) {
    const parsed = parseJson(value);
    if (!parsed.ok) break;
    value = parsed.value;
    if (typeof value !== 'string') out.push(value);
  }
  const schemaHasArguments =
    typeof schema.properties === 'object' && schema.properties !== null && 'arguments' in schema.properties;
  for (const candidate of [...out]) {
    if (
      !schemaHasArguments &&
      typeof candidate === 'object' &&
      candidate !== null &&
      !Array.isArray(candidate) &&
      'arguments' in candidate &&
      Object.keys(candidate).length === 1
    ) {
      let inner = (candidate as { arguments: unknown }).arguments;
      if (typeof inner === 'string') {
        const parsed = parseJson(inner);
        if (parsed.ok) inner = parsed.value;
      }
      out.push(inner);
    }
  }
  return out;
}

/**
 * `experimental_repairToolCall` for the AI SDK. It repairs invalid tool input only; an unknown
 * tool name returns `null` (the model gets a tool error and the run carries on) and is reported
 * to `onCandidate`. It first tries fixes that need no model (double-encoded JSON, an
 * `{ arguments: … }` envelope unless the schema has an `arguments` property), then makes exactly
 * one call to the same model for an object matching the schema, and validates it. Anything that
 * fails yields `null`, and the SDK reports the original error to the model.
 */
export function createToolCallRepair(options: CreateToolCallRepairOptions): ToolCallRepairFunction<ToolSet> {
  const logger = (options.logger ?? silentLogger()).child({ component: 'tool-call-repair' });
  const giveUp = (toolCall: { toolCallId: string; toolName: string }, reason: ToolCallRepairCandidate['reason']) => {
    options.onCandidate?.({ toolCallId: toolCall.toolCallId, toolName: toolCall.toolName, reason });
    return null;
  };
  return async ({ toolCall, tools, inputSchema, error, messages, system }) => {
    if (NoSuchToolError.isInstance(error)) return giveUp(toolCall, 'unknown-tool');
    if (!InvalidToolInputError.isInstance(error)) return null;
    const target: Tool | undefined = Object.hasOwn(tools, toolCall.toolName) ? tools[toolCall.toolName] : undefined;
    if (!target) return giveUp(toolCall, 'unknown-tool');
    const schema = await inputSchema({ toolName: toolCall.toolName });

    for (const candidate of cheapCandidates(toolCall.input, schema)) {
      const validated = await validateToolInput(target.inputSchema, candidate);
      if (validated.success) {
        logger.debug({ tool: toolCall.toolName }, 'repaired tool input without a model call');
        return { ...toolCall, input: JSON.stringify(validated.value) };
      }
    }

    try {
      const result = await generateText({
        model: options.model,
        maxRetries: 0,
        abortSignal: options.abortSignal,
        output: Output.object({ schema: jsonSchema(schema) }),
        system: typeof system === 'string' ? system : undefined,
        experimental_download: options.download ?? refuseDownloads,
        messages: [
          ...messages,
          {
            role: 'user',
            content:
              `Your call of tool "${toolCall.toolName}" had invalid input: ${error.message}\n` +
              `Input given: ${toolCall.input}\n` +
              `Reply with only the corrected input as a JSON object matching this schema:\n${JSON.stringify(schema)}`,
          },
        ],
      });
      const validated = await validateToolInput(target.inputSchema, result.output);
      if (!validated.success || validated.value === undefined || validated.value === null) {
        return giveUp(toolCall, 'invalid-input');
      }
      logger.debug({ tool: toolCall.toolName }, 'repaired tool input with one model call');
      return { ...toolCall, input: JSON.stringify(validated.value) };
    } catch (repairError) {
      logger.debug(
        { tool: toolCall.toolName, error: repairError instanceof Error ? repairError.message : String(repairError) },
        'tool input repair failed',
      );
      return giveUp(toolCall, 'invalid-input');
    }
  };
}

/**
 * The download of a repair not given the run's own: a URL the model reads itself is passed on, and
 * any other fails the follow-up call; nothing is fetched.
 */
const refuseDownloads: DownloadFunction = async (requested) => {
  const unread = requested.filter(({ isUrlSupportedByModel }) => !isUrlSupportedByModel).length;
  if (unread > 0) throw new Error(`the repair call downloads nothing, and ${unread} URL(s) need downloading`);
  return requested.map(() => null);
};
