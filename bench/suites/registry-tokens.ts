import {
  applyDeferExposition,
  assignMcpWireNames,
  buildDeferredToolsPrompt,
  createMcpToolEntry,
  createRunToolState,
  estimateToolTokens,
  ToolRegistry,
  type McpToolCaller,
} from '@agentq/registry';
import { serverDefinitionSchema, toolId } from '@agentq/shared';
import type { ToolSet } from 'ai';
import { countTokens } from 'gpt-tokenizer';
import { realisticServers } from '../../test/fixtures/tool-pools/realistic-pool.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

const caller: McpToolCaller = { callTool: async () => ({ content: [] }) };

/** A registry and per-run tool set of `count` realistic MCP tools (50 per server). */
function buildPool(count: number) {
  const servers = realisticServers({ servers: Math.ceil(count / 50), toolsPerServer: 50, seed: 3 });
  const registry = new ToolRegistry();
  const tools: ToolSet = {};
  let added = 0;
  for (const server of servers) {
    const definition = serverDefinitionSchema.parse(server.definition);
    const names = assignMcpWireNames(server.tools.map((tool) => ({ serverId: definition.id, toolName: tool.name })));
    for (const tool of server.tools) {
      if (added === count) break;
      const entry = createMcpToolEntry({
        definition,
        tool,
        wireName: names.get(toolId(definition.id, tool.name)) as string,
        caller,
      });
      registry.register(entry);
      tools[entry.name] = entry.tool;
      added += 1;
    }
  }
  return { registry, tools };
}

/**
 * Tool-definition tokens with deferral over tokens inline (the baseline, every definition sent),
 * at 50, 200 and 1 000 tools. The deferred cost counts the three meta tools' definitions, the
 * deferred-tools prompt section and any tool left inline. o200k tokenizer, default 32k window.
 */
const suite: BenchSuite = {
  name: 'registry-tokens',
  description: 'tool-definition tokens, deferred / inline, at 50, 200 and 1 000 tools (goal <= 0.10 at >= 200)',
  async run() {
    const figures: BenchFigure[] = [];
    for (const size of [50, 200, 1_000]) {
      const { registry, tools } = buildPool(size);
      const inline = registry.getAll().reduce((sum, entry) => sum + estimateToolTokens(entry), 0);
      const exposition = await applyDeferExposition(tools, registry, undefined, { state: createRunToolState() });
      const prompt = countTokens(buildDeferredToolsPrompt(exposition.deferred));
      const deferred = exposition.inlineTokens + prompt;
      const ratio = deferred / inline;
      figures.push({
        name: `tokens.deferred/inline@${size}`,
        value: ratio,
        unit: 'ratio',
        ...(size >= 200 ? atMost(ratio, 0.1) : {}),
        details: {
          tools: size,
          inlineTokens: inline,
          deferredTokens: deferred,
          metaAndInlineToolTokens: exposition.inlineTokens,
          promptSectionTokens: prompt,
          deferredCount: exposition.deferred.length,
        },
      });
    }
    return figures;
  },
};

export default suite;
