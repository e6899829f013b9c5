import { AgentqError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { checkListBytes, listMessageLimit, nestsDeeperThan, truncateText, TRUNCATION_NOTE } from './catalog-budget.js';

describe('nestsDeeperThan', () => {
  it('counts objects and arrays, the value itself being level 1', () => {
    expect(nestsDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestsDeeperThan('text', 1)).toBe(false);
    expect(nestsDeeperThan(undefined, 1)).toBe(false);
  });

  it('answers for a value nested a hundred thousand levels deep without overflowing the stack', () => {
    let deep: Record<string, unknown> = {};
    for (let level = 0; level < 100_000; level += 1) deep = { inner: deep };
    expect(nestsDeeperThan(deep, 32)).toBe(true);
  });
});

describe('truncateText', () => {
  it('keeps text within the limit and cuts longer text to the limit, note included', () => {
    expect(truncateText('short', 10)).toBe('short');
    const cut = truncateText('x'.repeat(50), 20);
    expect(cut).toHaveLength(20);
    expect(cut.endsWith(TRUNCATION_NOTE)).toBe(true);
  });

  it('never leaves half a surrogate pair', () => {
    const cut = truncateText(`${'a'.repeat(6)}${'😀'.repeat(10)}`, 6 + TRUNCATION_NOTE.length + 1);
    expect(cut).toBe(`${'a'.repeat(6)}${TRUNCATION_NOTE}`);
  });
});

describe('checkListBytes', () => {
  it('refuses a list over the byte budget with MCP_LIST_TOO_LARGE', () => {
    const tools = [{ name: 'a', description: 'x'.repeat(100), inputSchema: { type: 'object' as const } }];
    expect(() => checkListBytes(tools, { maxEntryBytes: 10_000 })).not.toThrow();
    let caught: unknown;
    try {
      checkListBytes(tools, { maxEntryBytes: 50 });
    } catch (error) {
      caught = error;
    }
    expect(AgentqError.isInstance(caught) && caught.code).toBe('MCP_LIST_TOO_LARGE');
  });
});

describe('listMessageLimit', () => {
  it('allows one message four times the list budget, and refuses past it as MCP_LIST_TOO_LARGE, naming the setting', () => {
    const limit = listMessageLimit({ maxEntryBytes: 1_000 });
    expect(limit.maxBytes).toBe(4_000);
    const error = limit.tooLarge();
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_LIST_TOO_LARGE');
    expect(error.message).toContain('4000 bytes (4 × AGENTQ_MAX_CATALOG_ENTRY_BYTES)');
  });
});
