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
