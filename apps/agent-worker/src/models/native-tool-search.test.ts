import { describe, expect, it } from 'vitest';
import { NATIVE_TOOL_SEARCH_NAME, nativeToolSearchFor } from './native-tool-search.js';

describe('nativeToolSearchFor', () => {
  it("picks Anthropic's BM25 search on the Messages API and OpenAI's hosted search on the Responses API", () => {
    const anthropic = nativeToolSearchFor(undefined, { provider: 'anthropic.messages' });
    expect(anthropic).toMatchObject({
      name: NATIVE_TOOL_SEARCH_NAME,
      tool: { type: 'provider', id: 'anthropic.tool_search_bm25_20251119' },
      deferOptions: { anthropic: { deferLoading: true } },
    });
    const openai = nativeToolSearchFor('native', { provider: 'openai.responses' });
    expect(openai).toMatchObject({
      tool: { type: 'provider', id: 'openai.tool_search' },
      deferOptions: { openai: { deferLoading: true } },
      reservedNames: ['tool_search'],
    });
    expect(NATIVE_TOOL_SEARCH_NAME).not.toBe('tool_search');
  });

  it('leaves every other model, and the meta setting, to the meta tools', () => {
    for (const provider of ['openai.chat', 'openai-compatible.chat', 'scripted']) {
      expect(nativeToolSearchFor('auto', { provider })).toBeUndefined();
    }
    expect(nativeToolSearchFor('meta', { provider: 'anthropic.messages' })).toBeUndefined();
  });
});
