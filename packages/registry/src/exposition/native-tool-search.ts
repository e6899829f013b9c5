import { AgentqError } from '@agentq/shared';
import type { Tool, ToolSet } from 'ai';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';

/** Provider options as a tool carries them (`{ anthropic: { … } }`, `{ openai: { … } }`). */
export type ToolProviderOptions = NonNullable<Tool['providerOptions']>;

/**
 * A provider's own tool search, as the worker builds it for a run's model: Anthropic's tool search
 * tool, or OpenAI's hosted `tool_search` on the Responses API. The registry knows nothing of the
 * providers; it only puts this tool beside the run's tools and marks the deferred ones.
 */
export interface NativeToolSearch {
  /**
   * Key of the search tool in the tool set, and so the tool name its calls carry in the run's
   * messages and timeline. Never a meta tool's name.
   */
  name: string;
  /** The provider tool, such as `anthropic.tools.toolSearchBm25_20251119()`. */
  tool: Tool;
  /** Provider options that mark one tool as deferred, such as `{ anthropic: { deferLoading: true } }`. */
  deferOptions: ToolProviderOptions;
  /**
   * Names no function tool may have in a request that carries this search tool, because the
   * provider already uses them on the wire (OpenAI's hosted search is `tool_search`).
   * @default none
   */
  reservedNames?: readonly string[];
}

/** What {@link exposeNatively} built. */
export interface NativeExposition {
  /** Inline tools as they were, the search tool, then every deferred tool marked as deferred. */
  tools: ToolSet;
}

/**
 * The tool set of the `native` strategy: every tool stays in the request, the deferred ones with
 * the provider's `defer_loading` mark, and the provider's search tool is added, so that a deferred
 * tool the model finds is called by its own name, through the same `execute` (approval gate,
 * journal, masking) as an inline one. No meta tool is added: agentq's `tool_search` and the
 * provider's search must never be offered in one request, and neither may a function tool with a
 * name the provider reserves.
 *
 * Inline tools come first and deferred ones last, so that a prompt-cache breakpoint on the last
 * inline tool covers every definition the provider renders up front.
 */
export function exposeNatively(options: {
  tools: ToolSet;
  names: readonly string[];
  deferredNames: ReadonlySet<string>;
  native: NativeToolSearch;
}): NativeExposition {
  const { tools, names, deferredNames, native } = options;
  const taken = new Set<string>([native.name, ...(native.reservedNames ?? [])]);
  const metaNames = new Set<string>(Object.values(META_TOOL_NAMES));
  if (metaNames.has(native.name)) {
    throw new AgentqError({
      code: 'INTERNAL',
      message: `the provider's tool search cannot be named ${native.name}: agentq's meta tools use that name`,
    });
  }
  for (const name of names) {
    if (taken.has(name) || metaNames.has(name)) {
      throw new AgentqError({
        code: 'INTERNAL',
        message: `tool ${name} cannot be offered beside the provider's tool search, which uses that name`,
      });
    }
  }
  const exposed: ToolSet = {};
  for (const name of names) {
    if (!deferredNames.has(name)) exposed[name] = tools[name] as Tool;
  }
  exposed[native.name] = native.tool;
  for (const name of names) {
    if (!deferredNames.has(name)) continue;
    const tool = tools[name] as Tool;
    exposed[name] = { ...tool, providerOptions: mergeProviderOptions(tool.providerOptions, native.deferOptions) };
  }
  return { tools: exposed };
}

/** `base` with each provider's options of `extra` added over its own. */
export function mergeProviderOptions(
  base: ToolProviderOptions | undefined,
  extra: ToolProviderOptions,
): ToolProviderOptions {
  const merged: ToolProviderOptions = { ...base };
  for (const [provider, values] of Object.entries(extra)) {
    merged[provider] = { ...base?.[provider], ...values };
  }
  return merged;
}
