import { tool, type ModelMessage, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { markPromptCache } from './mark-prompt-cache.js';

const tools: ToolSet = {
  first: tool({ description: 'one', inputSchema: z.object({}) }),
  last: tool({ description: 'two', inputSchema: z.object({}), providerOptions: { openai: { strict: true } } }),
};
const breakpoint = { cacheControl: { type: 'ephemeral' } };

describe('markPromptCache', () => {
  it('puts a cache breakpoint on the system prompt and the last tool of an Anthropic request', () => {
    const marked = markPromptCache({ provider: 'anthropic.messages', system: 'Be brief.', tools });
    expect(marked.system).toEqual({ role: 'system', content: 'Be brief.', providerOptions: { anthropic: breakpoint } });
    expect(marked.tools.first?.providerOptions).toBeUndefined();
    expect(marked.tools.last?.providerOptions).toEqual({ openai: { strict: true }, anthropic: breakpoint });
    expect(Object.keys(marked.tools)).toEqual(['first', 'last']);
    // The run's own tool set is left alone.
    expect(tools.last?.providerOptions).toEqual({ openai: { strict: true } });
  });

  it('skips the provider search tool and deferred tools, which the provider does not render up front', () => {
    const withSearch: ToolSet = {
      ...tools,
      provider_tool_search: {
        type: 'provider',
        id: 'anthropic.tool_search_bm25_20251119',
        args: {},
        inputSchema: z.object({}),
      },
      deferred: tool({
        description: 'three',
        inputSchema: z.object({}),
        providerOptions: { anthropic: { deferLoading: true } },
      }),
    };
    const marked = markPromptCache({ provider: 'anthropic.messages', system: 'Be brief.', tools: withSearch });
    expect(marked.tools.last?.providerOptions).toEqual({ openai: { strict: true }, anthropic: breakpoint });
    expect(marked.tools.provider_tool_search).toBe(withSearch.provider_tool_search);
    expect(marked.tools.deferred?.providerOptions).toEqual({ anthropic: { deferLoading: true } });
  });

  it('leaves other providers and empty inputs as they are', () => {
    const messages: ModelMessage[] = [{ role: 'user', content: 'hi' }];
    const openai = markPromptCache({ provider: 'openai.responses', system: 'x', tools });
    expect(openai).toMatchObject({ system: 'x', tools });
    expect(openai.messages(messages)).toBe(messages);
    const empty = markPromptCache({ provider: 'anthropic.messages', system: undefined, tools: {} });
    expect(empty).toMatchObject({ system: undefined, tools: {} });
    expect(empty.messages([])).toEqual([]);
  });

  it('marks the last message of each Anthropic request, leaving the run messages untouched', () => {
    const marked = markPromptCache({ provider: 'anthropic.messages', system: 'x', tools });
    const messages: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'text', text: 'calling' }], providerOptions: { openai: { a: 1 } } },
    ];
    const step = marked.messages(messages);
    expect(step[0]).toBe(messages[0]);
    expect(step[1]).toEqual({ ...messages[1], providerOptions: { openai: { a: 1 }, anthropic: breakpoint } });
    expect(messages[1]?.providerOptions).toEqual({ openai: { a: 1 } });
  });
});
