import { AgentqError } from '@agentq/shared';
import type { Tool, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { bulkySchema, makeEntry, makeTool } from '../test-support/fixtures.js';
import { applyDeferExposition } from './apply-defer-exposition.js';
import { buildDeferredToolsPrompt } from './build-deferred-tools-prompt.js';
import type { NativeToolSearch } from './native-tool-search.js';
import { createRunToolState } from './run-tool-state.js';

// Stands in for a provider tool: only its identity and key matter to the exposition.
const searchTool = { type: 'provider', id: 'fake.tool_search', args: {}, inputSchema: makeTool().inputSchema } as Tool;

function native(overrides: Partial<NativeToolSearch> = {}): NativeToolSearch {
  return {
    name: 'provider_tool_search',
    tool: searchTool,
    deferOptions: { fake: { deferLoading: true } },
    ...overrides,
  };
}

function setup(count: number) {
  const registry = new ToolRegistry();
  const tools: ToolSet = {};
  for (let index = 0; index < count; index += 1) {
    const entry = makeEntry(`mcp__gh__tool${index}`, {
      namespace: 'mcp:gh',
      label: 'mcp:GitHub',
      tool: makeTool({ description: `Tool ${index}.`, schema: bulkySchema(index) }),
    });
    registry.register(entry);
    tools[entry.name] = entry.tool;
  }
  return { registry, tools };
}

describe('applyDeferExposition with a native tool search', () => {
  it('keeps every tool, marks the deferred ones, adds the search tool and no meta tool', async () => {
    const { registry, tools } = setup(30);
    const inline = makeTool();
    const gated = { ...tools.mcp__gh__tool7, needsApproval: true } as Tool;
    const result = await applyDeferExposition(
      { ...tools, inline_helper: inline, mcp__gh__tool7: gated },
      registry,
      32_000,
      { state: createRunToolState(), native: native() },
    );
    expect(result.strategy).toBe('native');
    expect(result.deferred).toHaveLength(29);
    const names = Object.keys(result.tools);
    expect(names).toHaveLength(32);
    for (const meta of ['tool_search', 'tool_inspect', 'tool_invoke', 'tool_exec']) expect(names).not.toContain(meta);
    // Inline tools first and unchanged, then the search tool, then the deferred tools.
    expect(names.slice(0, 3)).toEqual(['inline_helper', 'mcp__gh__tool7', 'provider_tool_search']);
    expect(result.tools.inline_helper).toBe(inline);
    expect(result.tools.mcp__gh__tool7).toBe(gated);
    expect(result.tools.mcp__gh__tool7?.providerOptions).toBeUndefined();
    expect(result.tools.provider_tool_search).toBe(searchTool);
    const deferred = result.tools.mcp__gh__tool0;
    expect(deferred?.providerOptions).toEqual({ fake: { deferLoading: true } });
    // The same execute: the call goes through whatever wrapped the run's tool.
    expect(deferred?.execute).toBe(tools.mcp__gh__tool0?.execute);
    expect(result.inlineTokens).toBeLessThan(result.deferredTokens);
  });

  it('keeps a deferred tool its own provider options next to the deferral mark', async () => {
    const { registry, tools } = setup(30);
    const marked = { ...tools.mcp__gh__tool1, providerOptions: { fake: { other: 1 }, else: { x: true } } } as Tool;
    const result = await applyDeferExposition({ ...tools, mcp__gh__tool1: marked }, registry, 32_000, {
      state: createRunToolState(),
      native: native(),
    });
    expect(result.tools.mcp__gh__tool1?.providerOptions).toEqual({
      fake: { other: 1, deferLoading: true },
      else: { x: true },
    });
  });

  it('sends nothing extra when nothing is deferred', async () => {
    const { registry, tools } = setup(2);
    const result = await applyDeferExposition(tools, registry, 32_000, {
      state: createRunToolState(),
      native: native(),
    });
    expect(result.tools).toBe(tools);
    expect(result.strategy).toBe('meta');
  });

  it("refuses to offer a tool under a name the provider's search uses, or to name the search like a meta tool", async () => {
    const { registry, tools } = setup(30);
    const code = async (promise: Promise<unknown>) => {
      const error = await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      return AgentqError.isInstance(error) ? error.code : error;
    };
    const options = (search: NativeToolSearch) => ({ state: createRunToolState(), native: search });
    expect(
      await code(
        applyDeferExposition(
          { ...tools, tool_search: makeTool() },
          registry,
          32_000,
          options(native({ reservedNames: ['tool_search'] })),
        ),
      ),
    ).toBe('INTERNAL');
    expect(
      await code(applyDeferExposition({ ...tools, tool_search: makeTool() }, registry, 32_000, options(native()))),
    ).toBe('INTERNAL');
    expect(await code(applyDeferExposition(tools, registry, 32_000, options(native({ name: 'tool_search' }))))).toBe(
      'INTERNAL',
    );
  });
});

describe('buildDeferredToolsPrompt for the native strategy', () => {
  it('lists the groups and names no meta tool', () => {
    const text = buildDeferredToolsPrompt([makeEntry('a', { namespace: 'mcp:gh', label: 'mcp:GitHub' })], {
      strategy: 'native',
    });
    expect(text).toContain('- mcp:GitHub: 1 tool');
    for (const name of ['tool_search', 'tool_inspect', 'tool_invoke']) expect(text).not.toContain(name);
  });
});
