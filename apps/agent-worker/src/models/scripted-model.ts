import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3GenerateResult,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
} from '@ai-sdk/provider';
import type { ScriptStep } from '@agentq/shared';

/** Options of {@link createScriptedModel}. */
export interface ScriptedModelOptions {
  /** Model id after `scripted:`, for example `demo` or `test`. */
  modelId: string;
  /** The steps the model plays, one per model call. */
  script: readonly ScriptStep[];
  /**
   * Text of the step after the script ran out, built from the prompt. The built-in demo uses it to
   * summarise what its tools returned.
   * @default a fixed "script finished" sentence
   */
  finalText?: (prompt: LanguageModelV3Prompt) => string;
}

/**
 * A deterministic `LanguageModelV3` that plays a script: a test double for demos, dry runs and
 * tests, never a real model.
 *
 * It keeps no state of its own. The step it plays is the number of assistant turns already in the
 * prompt, and its tool call ids are derived from that step, so a run resumed from a checkpoint in
 * another process re-derives exactly the same calls and ids. That is what lets the worker recognise
 * a tool call it already executed.
 */
export function createScriptedModel(options: ScriptedModelOptions): LanguageModelV3 {
  const generate = (callOptions: LanguageModelV3CallOptions): LanguageModelV3GenerateResult => {
    const step = countAssistantTurns(callOptions.prompt);
    const scripted = options.script[step];
    const content: LanguageModelV3Content[] = [];
    let finish: 'stop' | 'tool-calls' = 'stop';
    if (scripted === undefined) {
      content.push({ type: 'text', text: options.finalText?.(callOptions.prompt) ?? 'The script has no more steps.' });
    } else if ('toolCalls' in scripted) {
      if (scripted.text) content.push({ type: 'text', text: scripted.text });
      scripted.toolCalls.forEach((call, index) => {
        content.push({
          type: 'tool-call',
          toolCallId: scriptedToolCallId(step, index),
          toolName: call.toolName,
          input: JSON.stringify(call.input ?? {}),
        });
      });
      finish = 'tool-calls';
    } else {
      content.push({ type: 'text', text: scripted.text });
    }
    const inputTokens = Math.ceil(JSON.stringify(callOptions.prompt).length / 4);
    const outputTokens = Math.ceil(JSON.stringify(content).length / 4);
    return {
      content,
      finishReason: { unified: finish, raw: finish },
      usage: {
        inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
      },
      warnings: [],
      response: { id: `scripted-${step}`, modelId: `scripted:${options.modelId}`, timestamp: new Date(0) },
    };
  };

  return {
    specificationVersion: 'v3',
    provider: 'scripted',
    modelId: options.modelId,
    supportedUrls: {},
    doGenerate: async (callOptions) => {
      await stepDelay(options.script, callOptions);
      return generate(callOptions);
    },
    doStream: async (callOptions): Promise<LanguageModelV3StreamResult> => {
      await stepDelay(options.script, callOptions);
      const result = generate(callOptions);
      const parts: LanguageModelV3StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      result.content.forEach((part, index) => {
        if (part.type === 'text') {
          const id = `text-${index}`;
          parts.push(
            { type: 'text-start', id },
            { type: 'text-delta', id, delta: part.text },
            { type: 'text-end', id },
          );
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      });
      parts.push({ type: 'finish', finishReason: result.finishReason, usage: result.usage });
      return {
        stream: new ReadableStream<LanguageModelV3StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  };
}

/** Tool call id of the `index`-th call of script step `step`: stable across processes. */
export function scriptedToolCallId(step: number, index: number): string {
  return `call_${step}_${index}`;
}

function countAssistantTurns(prompt: LanguageModelV3Prompt): number {
  return prompt.filter((message) => message.role === 'assistant').length;
}

/** Waits out the `delayMs` of the step about to be played; an abort ends the wait at once. */
async function stepDelay(script: readonly ScriptStep[], callOptions: LanguageModelV3CallOptions): Promise<void> {
  const delayMs = script[countAssistantTurns(callOptions.prompt)]?.delayMs ?? 0;
  if (delayMs <= 0) return;
  const signal = callOptions.abortSignal;
  signal?.throwIfAborted();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, delayMs);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason ?? new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
