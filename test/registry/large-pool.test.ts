import { serverDefinitionSchema } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import {
  applyDeferExposition,
  buildDeferredToolsPrompt,
  createCatalogReader,
  createRunToolState,
  isValidToolName,
  resolveAssistantMcpToolIds,
  syncMcpToolsToRegistry,
  ToolRegistry,
  type McpToolCaller,
  type ToolEntry,
} from '@agentq/registry';
import type { ToolSet } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { realisticServers, type GeneratedServer } from '../fixtures/tool-pools/realistic-pool.js';
import { writeCatalog } from '../fixtures/tool-pools/write-catalog.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const caller: McpToolCaller = { callTool: async () => ({ content: [{ type: 'text', text: 'ok' }] }) };

let ctx: TestContext;
let servers: GeneratedServer[];

beforeAll(async () => {
  ctx = createTestContext();
  servers = realisticServers({ servers: 40, toolsPerServer: 50 });
  await writeCatalog(ctx.redis, ctx.prefix, servers);
});

afterAll(async () => {
  await ctx.close();
});

function toolSetOf(entries: ToolEntry[]): ToolSet {
  return Object.fromEntries(entries.map((entry) => [entry.name, entry.tool]));
}

describe('registry over 40 servers × 50 tools (real Redis)', () => {
  it('resolves, syncs, selects and defers a 2 000-tool pool', async () => {
    const coldCalls: string[] = [];
    const reader = createCatalogReader({
      redis: ctx.redis,
      prefix: ctx.prefix,
      onColdServer: (id) => void coldCalls.push(id),
    });
    const registry = new ToolRegistry();
    const selected = await resolveAssistantMcpToolIds({ mcpMode: 'auto', mcpServers: [], disabledTools: [] }, reader);
    expect(selected.size).toBe(2_000);
    expect(coldCalls).toEqual([]);

    const result = await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
    expect(registry.size).toBe(2_000);
    expect(Object.keys(result.catalogVersion)).toHaveLength(40);
    const names = registry.getAll().map((entry) => entry.name);
    expect(new Set(names).size).toBe(2_000);
    expect(names.every(isValidToolName)).toBe(true);

    const active = registry.selectActive({ mcpToolIds: selected });
    expect(active).toHaveLength(2_000);
    const state = createRunToolState();
    const exposition = await applyDeferExposition(toolSetOf(active), registry, 128_000, { state });
    expect(exposition.deferred).toHaveLength(2_000);
    expect(Object.keys(exposition.tools).sort()).toEqual(['tool_inspect', 'tool_invoke', 'tool_search']);
    expect(exposition.inlineTokens * 10).toBeLessThan(exposition.deferredTokens);
    expect(state.allowedNames).toHaveLength(2_000);
    const prompt = buildDeferredToolsPrompt(exposition.deferred);
    expect(prompt).toContain('- mcp:GitHub: 50 tools');
    expect(prompt).not.toContain('mcp:github');

    const search = exposition.tools.tool_search;
    const found = (await search?.execute?.(
      { query: 'create an issue in GitLab' },
      { toolCallId: 's1', messages: [] },
    )) as {
      results: Array<{ name: string; group: string }>;
    };
    expect(found.results[0]).toMatchObject({ name: 'mcp__gitlab__createIssue', group: 'mcp:GitLab' });
  });

  it('a narrow selection activates only its tools, and a small set stays inline', async () => {
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix });
    const registry = new ToolRegistry();
    const selected = await resolveAssistantMcpToolIds(
      {
        mcpMode: 'manual',
        mcpServers: ['github'],
        disabledTools: servers[0]?.tools.slice(3).map((tool) => `github:${tool.name}`) ?? [],
      },
      reader,
    );
    expect(selected.size).toBe(3);
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
    const active = registry.selectActive({ mcpToolIds: selected });
    expect(active).toHaveLength(3);
    const tools = toolSetOf(active);
    const exposition = await applyDeferExposition(tools, registry, 128_000, { state: createRunToolState() });
    expect(exposition.tools).toBe(tools);
  });

  it('re-syncs only servers whose catalog version changed', async () => {
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix });
    const registry = new ToolRegistry();
    const selected = await resolveAssistantMcpToolIds({ mcpMode: 'auto', mcpServers: [], disabledTools: [] }, reader);
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
    const register = vi.spyOn(registry, 'register');
    const index = registry.searchIndex;
    const indexed = index?.stats;
    expect(indexed?.documents).toBe(2_000);

    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
    expect(register).not.toHaveBeenCalled();
    expect(index?.stats).toEqual(indexed);

    const changed = servers[5] as GeneratedServer;
    await writeCatalog(ctx.redis, ctx.prefix, [{ definition: changed.definition, tools: changed.tools.slice(0, 49) }]);
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
    expect(register).toHaveBeenCalledTimes(49);
    expect(registry.size).toBe(1_999);
    // The index followed one server's change document by document: 49 rewritten, 1 removed.
    expect(index?.stats).toEqual({
      documents: 1_999,
      documentWrites: (indexed?.documentWrites ?? 0) + 49,
      documentRemovals: (indexed?.documentRemovals ?? 0) + 1,
    });

    // Disable one server: its tools go, nobody else's.
    const disabled = serverDefinitionSchema.parse({ ...(servers[6] as GeneratedServer).definition, enabled: false });
    const keys = keyNames(ctx.prefix);
    await ctx.redis.multi().hset(keys.servers, disabled.id, JSON.stringify(disabled)).incr(keys.serversVersion).exec();
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: selected, caller });
    expect(registry.size).toBe(1_949);
    expect(registry.getAll({ namespace: `mcp:${disabled.id}` })).toEqual([]);
    expect(index?.size).toBe(1_949);
    expect(index?.list({ namespace: `mcp:${disabled.id}` })).toEqual([]);
  });
});
