/** Context window used when neither the run spec nor {@link knownContextWindows} knows the model. */
export const FALLBACK_CONTEXT_WINDOW = 32_000;

/**
 * Context windows of models agentq knows, by `provider:model` prefix. The longest matching prefix
 * wins, so `openai:gpt-4.1-mini` finds `openai:gpt-4.1`.
 */
export const knownContextWindows: Readonly<Record<string, number>> = {
  'openai:gpt-4o': 128_000,
  'openai:gpt-4.1': 1_047_576,
  'openai:gpt-5': 400_000,
  'openai:o3': 200_000,
  'openai:o4-mini': 200_000,
  'anthropic:claude-3-5': 200_000,
  'anthropic:claude-3-7': 200_000,
  'anthropic:claude-sonnet-4': 200_000,
  'anthropic:claude-opus-4': 200_000,
  'anthropic:claude-haiku-4': 200_000,
  // Small on purpose: the demo has only a handful of tools and must still show deferral.
  'scripted:demo': 4_000,
};

/** The context window of a run: the spec's, else the table's, else {@link FALLBACK_CONTEXT_WINDOW}. */
export function contextWindowOf(options: { modelId: string; contextWindow?: number | undefined }): number {
  if (options.contextWindow !== undefined) return options.contextWindow;
  let best: { prefix: string; window: number } | undefined;
  for (const [prefix, window] of Object.entries(knownContextWindows)) {
    if (options.modelId.startsWith(prefix) && (best === undefined || prefix.length > best.prefix.length)) {
      best = { prefix, window };
    }
  }
  return best?.window ?? FALLBACK_CONTEXT_WINDOW;
}
