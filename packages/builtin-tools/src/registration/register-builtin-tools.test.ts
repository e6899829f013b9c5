import { BUILTIN_TOOL_NAMES, ToolRegistry, type ToolApplyScope } from '@agentq/registry';
import { assistantSchema, loadConfig, type AgentqError, type AssistantSettings } from '@agentq/shared';
import type { Tool, ToolExecutionOptions } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  createInMemoryKnowledgeBaseReader,
  sampleKnowledgeBases,
} from '../test-support/in-memory-knowledge-base-reader.js';
import type { KnowledgeBaseReader } from '@agentq/shared';
import { agentqFailure } from '../test-support/agentq-failure.js';
import { registerBuiltinTools } from './register-builtin-tools.js';

function registryWith(reader?: KnowledgeBaseReader): ToolRegistry {
  const registry = new ToolRegistry();
  registerBuiltinTools(registry, { config: loadConfig({}), env: {}, knowledgeBaseReader: reader });
  return registry;
}

const scopeOf = (settings: unknown): ToolApplyScope => ({
  mcpToolIds: new Set(),
  // Parsed as a run spec's assistant is, so only settings a producer could send are tried.
  settings: assistantSchema.parse({ model: 'scripted:x', settings }).settings as AssistantSettings,
});

const activeNames = (registry: ToolRegistry, settings: unknown) =>
  registry.selectActive(scopeOf(settings)).map((entry) => entry.name);

const callOptions: ToolExecutionOptions = { toolCallId: 'call-1', messages: [] };

async function run(tool: Tool, input: unknown): Promise<unknown> {
  return await (tool.execute as (input: unknown, options: ToolExecutionOptions) => Promise<unknown>)(
    input,
    callOptions,
  );
}

async function runError(tool: Tool, input: unknown): Promise<AgentqError> {
  return await agentqFailure(run(tool, input));
}

describe('registerBuiltinTools', () => {
  it('registers the four builtin tools under their fixed names and namespaces', () => {
    const registry = registryWith();
    expect(registry.getAll().map((entry) => [entry.name, entry.namespace])).toEqual([
      [BUILTIN_TOOL_NAMES.kbList, 'kb'],
      [BUILTIN_TOOL_NAMES.kbSearch, 'kb'],
      [BUILTIN_TOOL_NAMES.webFetch, 'web'],
      [BUILTIN_TOOL_NAMES.webSearch, 'web'],
    ]);
  });

  it('gives a run none of them when its settings leave them off', () => {
    const registry = registryWith();
    expect(activeNames(registry, {})).toEqual([]);
    expect(activeNames(registry, { webSearch: false, webFetch: false, knowledgeBases: [] })).toEqual([]);
    expect(registry.selectActive({ mcpToolIds: new Set() })).toEqual([]);
  });

  it('gives a run exactly the tools its settings turn on', () => {
    const registry = registryWith();
    expect(activeNames(registry, { webSearch: {} })).toEqual(['web_search']);
    expect(activeNames(registry, { webSearch: { provider: 'brave' } })).toEqual(['web_search']);
    expect(activeNames(registry, { webFetch: true })).toEqual(['web_fetch']);
    expect(activeNames(registry, { knowledgeBases: ['handbook'] })).toEqual(['kb_list', 'kb_search']);
    expect(activeNames(registry, { webSearch: {}, webFetch: true, knowledgeBases: ['handbook'] })).toEqual([
      'kb_list',
      'kb_search',
      'web_fetch',
      'web_search',
    ]);
  });

  it('binds kb_search and kb_list to the run’s knowledge bases', async () => {
    const reader = createInMemoryKnowledgeBaseReader(sampleKnowledgeBases());
    const registry = registryWith(reader);
    const scope = scopeOf({ knowledgeBases: ['handbook'] });
    const search = registry.getByName('kb_search')?.forRun?.(scope) as Tool;
    const list = registry.getByName('kb_list')?.forRun?.(scope) as Tool;

    const found = (await run(search, { query: 'pages redis' })) as { results: Array<{ kb: string; text: string }> };
    // runbooks also mentions pages, but this run may only read the handbook.
    expect(found.results.map((hit) => hit.kb)).toEqual(['handbook']);
    expect(reader.calls.at(-1)).toEqual({ method: 'search', kbs: ['handbook'], query: 'pages redis', limit: 5 });

    const listed = (await run(list, {})) as { knowledgeBases: Array<{ kb: string }> };
    expect(listed.knowledgeBases.map((base) => base.kb)).toEqual(['handbook']);

    const refused = await runError(search, { query: 'redis', kb: 'runbooks' });
    expect(refused.code).toBe('KB_NOT_ALLOWED');
    expect(reader.calls.filter((call) => call.kbs.includes('runbooks'))).toEqual([]);
  });

  it('reads no knowledge base through the unbound tool', async () => {
    const reader = createInMemoryKnowledgeBaseReader(sampleKnowledgeBases());
    const registry = registryWith(reader);
    const unbound = registry.getByName('kb_search')?.tool as Tool;
    expect((await runError(unbound, { query: 'pages', kb: 'handbook' })).code).toBe('KB_NOT_ALLOWED');
    expect((await run(registry.getByName('kb_list')?.tool as Tool, {})) as object).toEqual({ knowledgeBases: [] });
  });

  it('answers with a tool error when the worker has no knowledge-base reader', async () => {
    const registry = registryWith(undefined);
    const scope = scopeOf({ knowledgeBases: ['handbook'] });
    for (const name of ['kb_search', 'kb_list']) {
      const tool = registry.getByName(name)?.forRun?.(scope) as Tool;
      const error = await runError(tool, name === 'kb_search' ? { query: 'x' } : {});
      expect(error.code).toBe('KB_UNAVAILABLE');
      expect(error.message).toBe('knowledge bases are not available on this worker');
    }
  });
});
