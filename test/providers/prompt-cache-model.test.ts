import { describe, expect, it } from 'vitest';
import {
  anthropicPrefix,
  createAnthropicCache,
  createOpenAICache,
  MIN_CACHEABLE_TOKENS,
} from '../fixtures/providers/prompt-cache-model.js';

const breakpoint = { type: 'ephemeral' };
// About 1 500 tokens: above the smallest cacheable prefix.
const longText = Array.from({ length: 300 }, (_, index) => `alpha${index} beta gamma`).join(' ');
const tool = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `Tool ${name}: ${longText}`,
  input_schema: { type: 'object', properties: {} },
  ...extra,
});

describe('the prompt cache model of the caching benchmark', () => {
  it('Anthropic: writes the prefix up to the last breakpoint, then reads it while messages grow', () => {
    const cache = createAnthropicCache();
    const system = [{ type: 'text', text: 'Be brief.', cache_control: breakpoint }];
    const first = {
      tools: [tool('a'), tool('b', { cache_control: breakpoint })],
      system,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    };
    const prefixTokens = anthropicPrefix(first)
      .slice(0, 3)
      .reduce((sum, block) => sum + block.tokens, 0);
    expect(prefixTokens).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
    const one = cache.usage(first, true);
    expect(one).toMatchObject({ cacheRead: 0, cacheCreation: prefixTokens });
    expect(one.fullPrice).toBe(one.total - prefixTokens);
    const second = {
      ...first,
      messages: [...first.messages, { role: 'assistant', content: [{ type: 'text', text: 'hello' }] }],
    };
    const two = cache.usage(second, true);
    expect(two).toMatchObject({ cacheRead: prefixTokens, cacheCreation: 0 });
    expect(two.fullPrice).toBe(two.total - prefixTokens);
    // A breakpoint on the last message caches the conversation for the next request.
    const third = {
      ...first,
      messages: [{ role: 'user', content: [{ type: 'text', text: longText, cache_control: breakpoint }] }],
    };
    const written = cache.usage(third, true);
    expect(written.cacheRead).toBe(prefixTokens);
    expect(written.cacheCreation).toBe(written.total - prefixTokens);
    const fourth = {
      ...first,
      messages: [
        { role: 'user', content: [{ type: 'text', text: longText }] },
        { role: 'assistant', content: [{ type: 'text', text: 'ok', cache_control: breakpoint }] },
      ],
    };
    expect(cache.usage(fourth, true).cacheRead).toBe(written.total);
    // Without caching, or with a changed tool list, nothing is read.
    expect(cache.usage(second, false)).toMatchObject({ fullPrice: two.total, cacheRead: 0 });
    const changed = { ...second, tools: [tool('c'), tool('b', { cache_control: breakpoint })] };
    expect(cache.usage(changed, true).cacheRead).toBe(0);
  });

  it('Anthropic: a deferred tool costs nothing until a tool reference loads it', () => {
    const cache = createAnthropicCache();
    const deferred = tool('deep', { defer_loading: true });
    const before = cache.usage({ tools: [deferred], system: 'x', messages: [] }, false);
    const reference = {
      type: 'tool_search_tool_result',
      tool_use_id: 's1',
      content: {
        type: 'tool_search_tool_search_result',
        tool_references: [{ type: 'tool_reference', tool_name: 'deep' }],
      },
    };
    const after = cache.usage(
      { tools: [deferred], system: 'x', messages: [{ role: 'assistant', content: [reference] }] },
      false,
    );
    expect(before.total).toBeLessThan(10);
    expect(after.total).toBeGreaterThan(MIN_CACHEABLE_TOKENS);
  });

  it('OpenAI: caches the shared prefix in 128-token steps from 1 024 tokens, and resolves item references', () => {
    const cache = createOpenAICache();
    const items = new Map<string, unknown>([['fc_1', { type: 'function_call', name: 'a', arguments: longText }]]);
    const first = {
      tools: [{ type: 'function', name: 'a', description: longText }],
      input: [{ role: 'user', content: 'hi' }],
    };
    const one = cache.usage(first, items, true);
    expect(one.cacheRead).toBe(0);
    const second = { ...first, input: [...first.input, { type: 'item_reference', id: 'fc_1' }] };
    const two = cache.usage(second, items, true);
    expect(two.cacheRead % 128).toBe(0);
    expect(two.cacheRead).toBeGreaterThanOrEqual(MIN_CACHEABLE_TOKENS);
    expect(two.cacheRead).toBeLessThanOrEqual(one.total);
    // The referenced item counts as the item itself.
    expect(two.total - one.total).toBeGreaterThan(1_000);
    expect(two.fullPrice).toBe(two.total - two.cacheRead);
  });
});
