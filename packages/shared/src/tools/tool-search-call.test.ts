import { describe, expect, it } from 'vitest';
import { toolSearchCallSummary } from './tool-search-call.js';

describe('toolSearchCallSummary', () => {
  it('reads the meta tool_search call', () => {
    expect(
      toolSearchCallSummary({
        toolName: 'tool_search',
        input: { query: 'add numbers' },
        output: { results: [{ name: 'mcp__a__sum', group: 'mcp:a' }, { name: 'mcp__a__add' }] },
      }),
    ).toEqual({ query: 'add numbers', found: ['mcp__a__sum', 'mcp__a__add'] });
  });

  it("reads Anthropic's and OpenAI's native searches as the run records them", () => {
    expect(
      toolSearchCallSummary({
        toolName: 'provider_tool_search',
        input: { query: 'records' },
        output: [{ type: 'tool_reference', toolName: 'mcp__big__tool0007' }],
      }),
    ).toEqual({ query: 'records', found: ['mcp__big__tool0007'] });
    expect(
      toolSearchCallSummary({
        toolName: 'provider_tool_search',
        input: { arguments: { query: 'records' }, call_id: null },
        output: { tools: [{ type: 'function', name: 'mcp__big__tool0011', defer_loading: true }] },
      }),
    ).toEqual({ query: 'records', found: ['mcp__big__tool0011'] });
  });

  it('has no found tools without a result or on a refusal, and ignores other tools', () => {
    expect(toolSearchCallSummary({ toolName: 'tool_search', input: { query: 'x' } })).toEqual({ query: 'x' });
    expect(toolSearchCallSummary({ toolName: 'tool_search', input: {}, output: { refused: true } })).toEqual({});
    expect(toolSearchCallSummary({ toolName: 'mcp__a__sum', input: { query: 'x' }, output: [] })).toBeUndefined();
  });
});
