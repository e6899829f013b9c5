import type { ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { bulkySchema, makeEntry, makeTool } from '../test-support/fixtures.js';
import { applyDeferExposition } from './apply-defer-exposition.js';
import { buildDeferredToolsPrompt } from './build-deferred-tools-prompt.js';
import { createRunToolState } from './run-tool-state.js';

function setup(count: number, options: { bulky?: boolean } = { bulky: true }) {
  const registry = new ToolRegistry();
  const tools: ToolSet = {};
  for (let index = 0; index < count; index += 1) {
    const entry = makeEntry(`mcp__gh__tool${index}`, {
      namespace: 'mcp:gh',
      label: 'mcp:GitHub',
      tool: makeTool({
        description: `Tool ${index}.`,
        schema: options.bulky ? bulkySchema(index) : { type: 'object' },
      }),
    });
    registry.register(entry);
    tools[entry.name] = entry.tool;
  }
  return { registry, tools };
}

describe('applyDeferExposition', () => {
  it('returns the same object and no meta tools when nothing is deferred, still recording allowedNames', async () => {
    const { registry, tools } = setup(3);
    const state = createRunToolState();
    const result = await applyDeferExposition(tools, registry, undefined, { state });
    expect(result.tools).toBe(tools);
    expect(result.deferred).toEqual([]);
    expect(Object.keys(result.tools).some((name) => name.startsWith('tool_'))).toBe(false);
    expect(state.allowedNames).toEqual(Object.keys(tools).sort());
  });

  it('works with the three-argument form, keeping its own run state', async () => {
    const { registry, tools } = setup(30);
    const result = await applyDeferExposition(tools, registry, 32_000);
    expect(result.deferred).toHaveLength(30);
    expect(Object.keys(result.tools).sort()).toEqual(['tool_inspect', 'tool_invoke', 'tool_search']);
  });

  it('removes deferred tools and adds exactly tool_search, tool_inspect and tool_invoke (never tool_exec)', async () => {
    const { registry, tools } = setup(30);
    tools.inline_helper = makeTool();
    const state = createRunToolState();
    const result = await applyDeferExposition(tools, registry, 32_000, { state });
    expect(result.deferred).toHaveLength(30);
    expect(Object.keys(result.tools).sort()).toEqual(['inline_helper', 'tool_inspect', 'tool_invoke', 'tool_search']);
    expect(result.tools).not.toHaveProperty('tool_exec');
    expect(state.allowedNames).toHaveLength(31);
    expect(result.inlineTokens).toBeLessThan(result.deferredTokens);
  });

  it('never defers a tool the per-run set gates for approval, even when its entry says auto', async () => {
    const { registry, tools } = setup(30);
    const gatedName = 'mcp__gh__tool3';
    const gated = { ...tools[gatedName], needsApproval: true } as ToolSet[string];
    const functionGated = { ...tools.mcp__gh__tool4, needsApproval: async () => false } as ToolSet[string];
    const result = await applyDeferExposition(
      { ...tools, [gatedName]: gated, mcp__gh__tool4: functionGated },
      registry,
      32_000,
      { state: createRunToolState() },
    );
    expect(result.tools[gatedName]).toBe(gated);
    expect(result.tools.mcp__gh__tool4).toBe(functionGated);
    expect(result.deferred.map((entry) => entry.name)).not.toContain(gatedName);
  });

  it('keeps tools without a registry entry inline', async () => {
    const { registry, tools } = setup(30);
    const extra = makeTool({ schema: bulkySchema(99) });
    const result = await applyDeferExposition({ ...tools, worker_only: extra }, registry, 32_000, {
      state: createRunToolState(),
    });
    expect(result.tools.worker_only).toBe(extra);
  });

  it('keeps inspectedNames across calls (the state survives a checkpoint round trip)', async () => {
    const { registry, tools } = setup(30);
    const state = createRunToolState();
    state.inspectedNames.push('mcp__gh__tool1');
    const restored = JSON.parse(JSON.stringify(state)) as typeof state;
    await applyDeferExposition(tools, registry, 32_000, { state: restored });
    expect(restored.inspectedNames).toEqual(['mcp__gh__tool1']);
  });
});

describe('buildDeferredToolsPrompt', () => {
  it('lists one line per label with its count, labels only, sorted', () => {
    const text = buildDeferredToolsPrompt([
      makeEntry('a', { namespace: 'mcp:gh-7f3a', label: 'mcp:GitHub' }),
      makeEntry('b', { namespace: 'mcp:gh-7f3a', label: 'mcp:GitHub' }),
      makeEntry('c', { namespace: 'mcp:fs-0001', label: 'mcp:Files' }),
    ]);
    expect(text).toContain('- mcp:Files: 1 tool\n- mcp:GitHub: 2 tools');
    expect(text).not.toContain('gh-7f3a');
    expect(text).not.toContain('fs-0001');
    for (const name of ['tool_search', 'tool_inspect', 'tool_invoke']) expect(text).toContain(name);
  });

  it('is empty when nothing is deferred', () => {
    expect(buildDeferredToolsPrompt([])).toBe('');
  });
});
