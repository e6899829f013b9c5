import { anthropic } from '@ai-sdk/anthropic';
import { openai } from '@ai-sdk/openai';
import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { NativeToolSearch } from '@agentq/registry';
import type { Tool } from 'ai';
import type { ToolExposition } from '@agentq/shared';

/**
 * Key of the provider's search tool in a run's tool set, whatever the provider: the name its
 * searches carry in the run's messages, timeline and traces. It differs from agentq's meta
 * `tool_search`, so the two can never be confused, and the AI SDK maps it to the provider's own
 * name on the wire (`tool_search_tool_bm25` for Anthropic, the hosted `tool_search` for OpenAI).
 */
export const NATIVE_TOOL_SEARCH_NAME = 'provider_tool_search';

/**
 * The provider's own tool search for `model`, or `undefined` when the run uses agentq's meta tools:
 * - `meta`: always the meta tools;
 * - `auto` (the default) and `native`: Anthropic's BM25 tool search tool on the Messages API, or
 *   OpenAI's hosted `tool_search` on the Responses API; the meta tools for every other model
 *   (OpenAI chat completions, OpenAI-compatible servers, the scripted model). The run spec refuses
 *   `native` for a provider without a search at enqueue, so `native` only falls back here for a
 *   model the provider serves through another API.
 *
 * The provider tools come from the default provider instances: they are plain descriptions that
 * read no key or setting, and the run's own model sends them.
 */
export function nativeToolSearchFor(
  exposition: ToolExposition | undefined,
  model: Pick<LanguageModelV3, 'provider'>,
): NativeToolSearch | undefined {
  if (exposition === 'meta') return undefined;
  if (model.provider === 'anthropic.messages') {
    return {
      name: NATIVE_TOOL_SEARCH_NAME,
      tool: anthropic.tools.toolSearchBm25_20251119(),
      deferOptions: { anthropic: { deferLoading: true } },
      reservedNames: ['tool_search_tool_bm25'],
    };
  }
  if (model.provider === 'openai.responses') {
    return {
      name: NATIVE_TOOL_SEARCH_NAME,
      // @ai-sdk/openai carries its own copy of provider-utils, whose schema type differs only in
      // name; the schema marker is a global symbol, so the tool works with `ai` as it is.
      tool: openai.tools.toolSearch() as unknown as Tool,
      deferOptions: { openai: { deferLoading: true } },
      reservedNames: ['tool_search'],
    };
  }
  return undefined;
}
