/**
 * The model providers agentq can run, the part of `provider:model` before the first colon:
 * `openai` (Responses API), `anthropic` (Messages API), `openai-compatible` (chat completions:
 * Ollama, vLLM, llama.cpp) and `scripted` (the built-in deterministic test model). The run spec
 * schema refuses any other provider at enqueue, and the worker's model resolver builds exactly
 * these.
 */
export const MODEL_PROVIDERS = ['openai', 'anthropic', 'openai-compatible', 'scripted'] as const;

/** One of {@link MODEL_PROVIDERS}. */
export type ModelProvider = (typeof MODEL_PROVIDERS)[number];

/** Whether `name` is one of {@link MODEL_PROVIDERS}. */
export function isModelProvider(name: string): name is ModelProvider {
  return (MODEL_PROVIDERS as readonly string[]).includes(name);
}

/**
 * Providers whose API searches deferred tools itself: Anthropic's tool search tool (Messages API)
 * and OpenAI's hosted `tool_search` (Responses API). Only these can take
 * `settings.toolExposition: 'native'`; `auto` picks native for them and the meta tools elsewhere.
 */
export const NATIVE_TOOL_SEARCH_PROVIDERS = ['anthropic', 'openai'] as const satisfies readonly ModelProvider[];

/** Whether `provider` searches deferred tools itself (see {@link NATIVE_TOOL_SEARCH_PROVIDERS}). */
export function hasNativeToolSearch(provider: string): boolean {
  return (NATIVE_TOOL_SEARCH_PROVIDERS as readonly string[]).includes(provider);
}

/**
 * How a run's deferred tools reach the model:
 * - `meta`: agentq's own `tool_search`, `tool_inspect` and `tool_invoke`;
 * - `native`: the provider's own tool search, each deferred tool sent with `defer_loading`;
 * - `auto`: `native` where the provider has it ({@link NATIVE_TOOL_SEARCH_PROVIDERS}), else `meta`.
 */
export const TOOL_EXPOSITIONS = ['auto', 'meta', 'native'] as const;

/** One of {@link TOOL_EXPOSITIONS}. */
export type ToolExposition = (typeof TOOL_EXPOSITIONS)[number];
