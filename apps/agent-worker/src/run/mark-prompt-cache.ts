import type { ModelMessage, SystemModelMessage, ToolSet } from 'ai';

const anthropicBreakpoint = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** What {@link markPromptCache} returns: the run's system prompt and tools, ready for `generateText`. */
export interface PromptCacheMarks {
  system: string | SystemModelMessage | undefined;
  tools: ToolSet;
  /**
   * The messages of one step, the last one marked as a breakpoint for Anthropic (unchanged for
   * other providers): each step then reads the conversation so far from the cache, and writes only
   * what the previous step added. Only the request is marked, never the run's stored messages.
   */
  messages(messages: ModelMessage[]): ModelMessage[];
}

/** Other providers' messages, as they are: one function for every run, not one per run. */
function unchanged(messages: ModelMessage[]): ModelMessage[] {
  return messages;
}

/** `messages` with a cache breakpoint on the last one (Anthropic puts it on its last block). */
function markLastMessage(messages: ModelMessage[]): ModelMessage[] {
  const last = messages.at(-1);
  if (last === undefined || last.role === 'system') return messages;
  const marked = { ...last, providerOptions: { ...last.providerOptions, ...anthropicBreakpoint } } as ModelMessage;
  return [...messages.slice(0, -1), marked];
}

/**
 * Marks the stable prefix of a run's requests for the provider's prompt cache. Anthropic caches
 * only up to an explicit `cache_control` breakpoint, so for `anthropic.*` models the last tool
 * rendered up front and the system prompt each carry one (the request's prefix is the tools, then
 * the system prompt): every step after the first reads them from the cache instead of paying for them in
 * full. A third breakpoint, on the last message of each step's request, caches the conversation
 * as it grows (Anthropic allows four). Other providers cache on their own and get the inputs
 * unchanged.
 */
export function markPromptCache(options: {
  /** `LanguageModelV3.provider` of the run's model, such as `anthropic.messages`. */
  provider: string;
  system: string | undefined;
  tools: ToolSet;
}): PromptCacheMarks {
  const { provider, system, tools } = options;
  if (!provider.startsWith('anthropic')) return { system, tools, messages: unchanged };
  // The breakpoint goes on the last tool rendered up front: a provider tool takes none, and a
  // deferred one is not part of the prefix until the model's search loads it.
  const last = Object.keys(tools).findLast((name) => {
    const tool = tools[name] as ToolSet[string];
    return tool.type !== 'provider' && tool.providerOptions?.anthropic?.deferLoading !== true;
  });
  const marked: ToolSet = { ...tools };
  if (last !== undefined) {
    const tool = tools[last] as ToolSet[string];
    marked[last] = { ...tool, providerOptions: { ...tool.providerOptions, ...anthropicBreakpoint } };
  }
  return {
    system:
      system === undefined ? undefined : { role: 'system', content: system, providerOptions: anthropicBreakpoint },
    tools: marked,
    messages: markLastMessage,
  };
}
