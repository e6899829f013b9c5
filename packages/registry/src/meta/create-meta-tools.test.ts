import type { Tool, ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { createRunToolState, type RunToolState } from '../exposition/run-tool-state.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import type { ToolEntry } from '../registry/tool-entry.js';
import { makeEntry, makeTool } from '../test-support/fixtures.js';
import { withTextOnlyToolResults } from '../mcp/mcp-tool-output.js';
import { applyMetaToolEffects } from './apply-meta-tool-effects.js';
import { createMetaTools } from './create-meta-tools.js';
import { ToolSearchIndex } from './tool-search-index.js';

interface Fixture {
  tools: ToolSet;
  deferred: ToolEntry[];
  state: RunToolState;
  executed: Array<{
    name: string;
    input: unknown;
    toolCallId: string;
    abortSignal?: AbortSignal;
    messages?: unknown[];
  }>;
  meta: ReturnType<typeof createMetaTools>;
}

const schema = {
  type: 'object',
  properties: { path: { type: 'string', description: 'File path' }, lines: { type: 'integer' } },
  required: ['path'],
};

function fixture(): Fixture {
  const executed: Fixture['executed'] = [];
  const recording = (name: string, extra: Partial<Parameters<typeof makeTool>[0]> = {}): Tool =>
    makeTool({
      description: `${name} description`,
      schema,
      execute: (input, options) => {
        executed.push({
          name,
          input,
          toolCallId: options.toolCallId,
          abortSignal: (options as { abortSignal?: AbortSignal }).abortSignal,
          messages: (options as { messages?: unknown[] }).messages,
        });
        return { ran: name };
      },
      ...extra,
    });
  const tools: ToolSet = {
    mcp__fs__readFile: recording('mcp__fs__readFile'),
    mcp__fs__writeFile: recording('mcp__fs__writeFile'),
    mcp__gh__createIssue: recording('mcp__gh__createIssue'),
    gated_inline: recording('gated_inline', { needsApproval: true }),
    inline_plain: recording('inline_plain'),
  };
  const deferred = [
    makeEntry('mcp__fs__readFile', {
      namespace: 'mcp:fs',
      label: 'mcp:Files',
      description: 'Read a text file',
      tool: tools.mcp__fs__readFile,
    }),
    makeEntry('mcp__fs__writeFile', {
      namespace: 'mcp:fs',
      label: 'mcp:Files',
      description: 'Write a text file',
      tool: tools.mcp__fs__writeFile,
    }),
    makeEntry('mcp__gh__createIssue', {
      namespace: 'mcp:gh',
      label: 'mcp:GitHub',
      description: 'Open an issue',
      tool: tools.mcp__gh__createIssue,
    }),
  ];
  const state = createRunToolState();
  state.allowedNames = Object.keys(tools).sort();
  const meta = createMetaTools({ registry: new ToolRegistry(), tools, deferred, state });
  return { tools, deferred, state, executed, meta };
}

async function run(
  tool: Tool,
  input: unknown,
  options: { toolCallId?: string; abortSignal?: AbortSignal; messages?: Array<{ role: 'user'; content: string }> } = {},
) {
  return (await tool.execute?.(input as never, {
    toolCallId: options.toolCallId ?? 'outer-1',
    messages: options.messages ?? [],
    abortSignal: options.abortSignal,
  })) as Record<string, unknown>;
}

describe('tool_search', () => {
  it('lists deferred tools only, each labelled with its group, as { name, group, description }', async () => {
    const { meta } = fixture();
    const result = await run(meta.tool_search, {});
    expect(result.results).toEqual([
      { name: 'mcp__fs__readFile', group: 'mcp:Files', description: 'Read a text file' },
      { name: 'mcp__fs__writeFile', group: 'mcp:Files', description: 'Write a text file' },
      { name: 'mcp__gh__createIssue', group: 'mcp:GitHub', description: 'Open an issue' },
    ]);
    expect(JSON.stringify(result)).not.toContain('inline_plain');
  });

  it('filters by namespace or label and ranks by query', async () => {
    const { meta } = fixture();
    const byLabel = await run(meta.tool_search, { namespace: 'mcp:GitHub' });
    const byNamespace = await run(meta.tool_search, { namespace: 'mcp:gh' });
    expect(byLabel).toEqual(byNamespace);
    const ranked = (await run(meta.tool_search, { query: 'write a file' })) as { results: Array<{ name: string }> };
    expect(ranked.results[0]?.name).toBe('mcp__fs__writeFile');
  });

  it('keeps rank order across groups: labels never regroup results', async () => {
    const tools: ToolSet = {};
    const deferred: ToolEntry[] = [];
    const add = (name: string, namespace: string, description: string) => {
      tools[name] = makeTool({ description });
      deferred.push(makeEntry(name, { namespace, label: namespace, description, tool: tools[name] }));
    };
    // Server a has the best and the fourth-best match, server b the second and third.
    add('a_exportInvoicesCsv', 'mcp:a', 'Export invoices as CSV.');
    add('b_exportInvoices', 'mcp:b', 'Export invoices.');
    add('b_invoicesCsv', 'mcp:b', 'Invoices as CSV.');
    add('a_invoices', 'mcp:a', 'Invoices.');
    const state = createRunToolState();
    state.allowedNames = Object.keys(tools).sort();
    const meta = createMetaTools({ registry: new ToolRegistry(), tools, deferred, state });
    const result = (await run(meta.tool_search, { query: 'export invoices as csv' })) as {
      results: Array<{ name: string; group: string }>;
    };
    const expected = new ToolSearchIndex(deferred).search('export invoices as csv').map((hit) => hit.entry.name);
    expect(result.results.map((item) => item.name)).toEqual(expected);
    expect(result.results.map((item) => item.group)).toEqual(['mcp:a', 'mcp:b', 'mcp:b', 'mcp:a']);
  });

  it('takes an optional limit, 8 by default and at most 25, and refuses others', async () => {
    const tools: ToolSet = {};
    const deferred: ToolEntry[] = [];
    for (let index = 0; index < 30; index += 1) {
      const name = `records_${index}`;
      tools[name] = makeTool({ description: `Fetch record number ${index}.` });
      deferred.push(makeEntry(name, { namespace: 'mcp:r', description: `Fetch record ${index}`, tool: tools[name] }));
    }
    const state = createRunToolState();
    state.allowedNames = Object.keys(tools).sort();
    const meta = createMetaTools({ registry: new ToolRegistry(), tools, deferred, state });
    const count = async (input: Record<string, unknown>) =>
      ((await run(meta.tool_search, { query: 'fetch record', ...input })).results as unknown[]).length;
    expect(await count({})).toBe(8);
    expect(await count({ limit: 3 })).toBe(3);
    expect(await count({ limit: 25 })).toBe(25);
    const schema = meta.tool_search.inputSchema as unknown as { safeParse(value: unknown): { success: boolean } };
    expect(schema.safeParse({ query: 'x', limit: 26 }).success).toBe(false);
    expect(schema.safeParse({ query: 'x', limit: 0 }).success).toBe(false);
    expect(schema.safeParse({ query: 'x', limit: 2.5 }).success).toBe(false);
    expect(schema.safeParse({ query: 'x', limit: 25 }).success).toBe(true);
  });

  it("labels each result of a stale server with the server's freshness", async () => {
    const base = fixture();
    const note = 'server unreachable since 2026-01-01T00:00:00.000Z; tools may be out of date';
    const meta = createMetaTools({
      registry: new ToolRegistry(),
      tools: base.tools,
      deferred: base.deferred,
      state: base.state,
      freshness: new Map([['mcp:fs', note]]),
    });
    const result = (await run(meta.tool_search, { query: 'file' })) as {
      results: Array<{ name: string; freshness?: string }>;
    };
    expect(result.results.length).toBeGreaterThan(0);
    for (const item of result.results) {
      expect(item.freshness).toBe(item.name.startsWith('mcp__fs__') ? note : undefined);
    }
  });

  it('searches the registry index filtered to the run, without building another', async () => {
    const { tools, deferred, state } = fixture();
    const registry = new ToolRegistry();
    for (const entry of deferred) registry.register(entry);
    registry.register(makeEntry('other_run_tool', { namespace: 'mcp:fs', description: 'Read a text file too' }));
    const index = registry.searchIndex as ToolSearchIndex;
    const before = index.stats;
    const meta = createMetaTools({ registry, tools, deferred, state });
    const result = (await run(meta.tool_search, { query: 'read a text file' })) as { results: Array<{ name: string }> };
    expect(result.results[0]?.name).toBe('mcp__fs__readFile');
    expect(JSON.stringify(result)).not.toContain('other_run_tool');
    expect(index.stats).toEqual(before);
  });

  it('verbose adds the JSON schema and records the names as inspected', async () => {
    const { meta, state } = fixture();
    const result = (await run(meta.tool_search, { query: 'issue', verbose: true })) as {
      results: Array<{ name: string; schema?: unknown }>;
    };
    const hit = result.results[0];
    expect(hit?.name).toBe('mcp__gh__createIssue');
    expect(hit?.schema).toMatchObject({ properties: { path: { type: 'string' } } });
    expect(state.inspectedNames).toContain('mcp__gh__createIssue');
  });

  it('an empty result tells the model to broaden the query', async () => {
    const { meta } = fixture();
    const result = await run(meta.tool_search, { query: 'zzqx' });
    expect(result.results).toEqual([]);
    expect(String(result.message)).toMatch(/broaden/i);
  });

  it('an empty result suggests the nearest groups', async () => {
    const { meta } = fixture();
    // A misspelt product name matches no word, but is nearest to the GitHub group.
    const result = (await run(meta.tool_search, { query: 'githbu' })) as {
      results: unknown[];
      suggestions: Array<{ group: string; tools: number }>;
    };
    expect(result.results).toEqual([]);
    expect(result.suggestions[0]).toEqual({ group: 'mcp:GitHub', tools: 1 });
    expect(result.suggestions.map((suggestion) => suggestion.group).sort()).toEqual(['mcp:Files', 'mcp:GitHub']);
    const filtered = (await run(meta.tool_search, { query: 'zzqx', namespace: 'mcp:GitHub' })) as {
      suggestions: Array<{ group: string }>;
    };
    expect(filtered.suggestions.map((suggestion) => suggestion.group)).toEqual(['mcp:Files']);
  });
});

describe('tool_inspect', () => {
  it('returns a JSDoc stub and records the name as inspected', async () => {
    const { meta, state } = fixture();
    const result = await run(meta.tool_inspect, { name: 'mcp__fs__readFile' });
    expect(String(result.signature)).toContain('@param {string} params.path - File path (required)');
    expect(String(result.signature)).toContain('function mcp__fs__readFile(params) {}');
    expect(state.inspectedNames).toEqual(['mcp__fs__readFile']);
  });

  it('refuses names outside this request', async () => {
    const { meta, state } = fixture();
    const result = await run(meta.tool_inspect, { name: 'mcp__other__secret' });
    expect(result).toMatchObject({ refused: true, code: 'TOOL_NOT_IN_REQUEST' });
    expect(state.inspectedNames).toEqual([]);
  });
});

describe('tool_invoke', () => {
  it('1. refuses a name not in this request', async () => {
    const { meta, executed } = fixture();
    expect(await run(meta.tool_invoke, { name: 'nope', params: {} })).toMatchObject({ code: 'TOOL_NOT_IN_REQUEST' });
    expect(executed).toEqual([]);
  });

  it('1. refuses a name not in the request even when the tool set has it', async () => {
    const { meta, state, executed } = fixture();
    state.allowedNames = state.allowedNames.filter((name) => name !== 'mcp__fs__readFile');
    state.inspectedNames.push('mcp__fs__readFile');
    expect(await run(meta.tool_invoke, { name: 'mcp__fs__readFile', params: { path: 'a' } })).toMatchObject({
      code: 'TOOL_NOT_IN_REQUEST',
    });
    expect(executed).toEqual([]);
  });

  it('2. refuses a name in the request that the tool set no longer has', async () => {
    const { meta, state } = fixture();
    state.allowedNames.push('ghost');
    expect(await run(meta.tool_invoke, { name: 'ghost', params: {} })).toMatchObject({ code: 'TOOL_NOT_FOUND' });
  });

  it('3. refuses a tool without execute', async () => {
    const { meta, tools, state } = fixture();
    tools.no_exec = { ...makeTool(), execute: undefined } as unknown as Tool;
    state.allowedNames.push('no_exec');
    state.inspectedNames.push('no_exec');
    expect(await run(meta.tool_invoke, { name: 'no_exec', params: {} })).toMatchObject({ code: 'TOOL_NOT_EXECUTABLE' });
  });

  it('4. refuses an approval-gated tool before anything else runs, even when not inspected', async () => {
    const { meta, state, executed } = fixture();
    const result = await run(meta.tool_invoke, { name: 'gated_inline', params: { path: 'x' } });
    expect(result).toMatchObject({ refused: true, code: 'TOOL_NEEDS_APPROVAL' });
    expect(String(result.message)).toContain('gated_inline');
    expect(executed).toEqual([]);
    expect(state.inspectedNames).not.toContain('gated_inline');
  });

  it('4. refuses a tool whose needsApproval function throws (fail closed)', async () => {
    const { meta, tools, state, executed } = fixture();
    tools.flaky_gate = makeTool({
      needsApproval: () => {
        throw new Error('policy lookup failed');
      },
      execute: () => executed.push({ name: 'flaky_gate', input: null, toolCallId: '' }),
    });
    state.allowedNames.push('flaky_gate');
    state.inspectedNames.push('flaky_gate');
    expect(await run(meta.tool_invoke, { name: 'flaky_gate', params: {} })).toMatchObject({
      code: 'TOOL_NEEDS_APPROVAL',
    });
    expect(executed).toEqual([]);
  });

  it('5. refuses once when not inspected, with the signature, then lets the retry through', async () => {
    const { meta, state, executed } = fixture();
    const first = await run(meta.tool_invoke, { name: 'mcp__fs__readFile', params: { path: 'a.txt' } });
    expect(first).toMatchObject({ refused: true, code: 'TOOL_NOT_INSPECTED' });
    expect(String(first.signature)).toContain('function mcp__fs__readFile(params) {}');
    expect(state.inspectedNames).toContain('mcp__fs__readFile');
    expect(executed).toEqual([]);
    expect(await run(meta.tool_invoke, { name: 'mcp__fs__readFile', params: { path: 'a.txt' } })).toEqual({
      ran: 'mcp__fs__readFile',
    });
  });

  it('6. refuses invalid params with the error and the signature', async () => {
    const { meta, state, executed } = fixture();
    state.inspectedNames.push('mcp__fs__readFile');
    const result = await run(meta.tool_invoke, { name: 'mcp__fs__readFile', params: { lines: 'three' } });
    expect(result).toMatchObject({ refused: true, code: 'INVALID_PARAMS' });
    expect(String(result.message)).toContain('path');
    expect(String(result.signature)).toContain('params.path');
    expect(executed).toEqual([]);
  });

  it('executes with the nested call id <outer>::<name> and passes the abort signal through', async () => {
    const { meta, state, executed } = fixture();
    state.inspectedNames.push('mcp__gh__createIssue');
    const controller = new AbortController();
    const result = await run(
      meta.tool_invoke,
      { name: 'mcp__gh__createIssue', params: { path: 'p', lines: 2 } },
      { toolCallId: 'call-9', abortSignal: controller.signal, messages: [{ role: 'user', content: 'open one' }] },
    );
    expect(result).toEqual({ ran: 'mcp__gh__createIssue' });
    expect(executed).toEqual([
      {
        name: 'mcp__gh__createIssue',
        input: { path: 'p', lines: 2 },
        toolCallId: 'call-9::mcp__gh__createIssue',
        abortSignal: controller.signal,
        messages: [{ role: 'user', content: 'open one' }],
      },
    ]);
  });

  it('resolves from the per-run set, not the registry: a registry-only tool is unreachable', async () => {
    const registry = new ToolRegistry();
    const registryOnly = makeEntry('registry_only');
    registry.register(registryOnly);
    const state = createRunToolState();
    state.allowedNames = ['registry_only'];
    state.inspectedNames = ['registry_only'];
    const meta = createMetaTools({ registry, tools: {}, deferred: [], state });
    expect(await run(meta.tool_invoke, { name: 'registry_only', params: {} })).toMatchObject({
      code: 'TOOL_NOT_FOUND',
    });
  });

  it('a tool error propagates as the tool_invoke error', async () => {
    const { meta, tools, state } = fixture();
    tools.failing = makeTool({
      execute: () => {
        throw new Error('upstream failed');
      },
    });
    state.allowedNames.push('failing');
    state.inspectedNames.push('failing');
    await expect(run(meta.tool_invoke, { name: 'failing', params: {} })).rejects.toThrow('upstream failed');
  });
});

describe('applyMetaToolEffects (replaying journalled results)', () => {
  // What the journal holds: the JSON of each output.
  const journalled = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

  it('re-applies what tool_inspect, verbose tool_search and a TOOL_NOT_INSPECTED refusal did', async () => {
    const { meta, state } = fixture();
    const calls = [
      { toolName: 'tool_inspect', input: { name: 'mcp__gh__createIssue' } },
      { toolName: 'tool_search', input: { query: 'file', verbose: true } },
      { toolName: 'tool_invoke', input: { name: 'inline_plain', params: { path: 'x' } } },
    ] as const;
    const outputs: unknown[] = [];
    for (const call of calls) outputs.push(journalled(await run(meta[call.toolName], call.input)));
    expect(state.inspectedNames.length).toBeGreaterThanOrEqual(4);

    const replayed = createRunToolState();
    replayed.allowedNames = [...state.allowedNames];
    calls.forEach((call, index) => applyMetaToolEffects(replayed, { ...call, output: outputs[index] }));
    expect([...replayed.inspectedNames].sort()).toEqual([...state.inspectedNames].sort());
    // Idempotent.
    calls.forEach((call, index) => applyMetaToolEffects(replayed, { ...call, output: outputs[index] }));
    expect([...replayed.inspectedNames].sort()).toEqual([...state.inspectedNames].sort());
  });

  it('marks nothing for a refusal, a terse search or a name outside the request', () => {
    const state = createRunToolState();
    state.allowedNames = ['mcp__fs__readFile'];
    applyMetaToolEffects(state, {
      toolName: 'tool_inspect',
      input: { name: 'x' },
      output: { refused: true, code: 'TOOL_NOT_IN_REQUEST', message: 'no' },
    });
    applyMetaToolEffects(state, {
      toolName: 'tool_search',
      input: { query: 'file' },
      output: { results: [{ namespace: 'mcp:fs', tools: [{ name: 'mcp__fs__readFile', description: 'Read' }] }] },
    });
    applyMetaToolEffects(state, {
      toolName: 'tool_inspect',
      input: { name: 'mcp__other' },
      output: { name: 'mcp__other', signature: 'function mcp__other(params) {}' },
    });
    expect(state.inspectedNames).toEqual([]);
  });
});

describe('tool_invoke results the model can see', () => {
  const media = {
    type: 'mcp-media' as const,
    text: 'a picture',
    images: [{ mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
    fallback: 'a picture\n[image: image/png, not shown]',
  };
  const toModel = (tool: Tool | undefined, output: unknown) =>
    tool?.toModelOutput?.({ toolCallId: 'c1', input: {}, output } as never);

  it('hands the images of the MCP result it ran to the model as image parts, not JSON', async () => {
    const { meta } = fixture();
    expect(await toModel(meta.tool_invoke, media)).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'a picture' },
        { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      ],
    });
    expect(await toModel(meta.tool_invoke, { refused: true })).toEqual({ type: 'json', value: { refused: true } });
    expect(await toModel(meta.tool_invoke, 'plain')).toEqual({ type: 'text', value: 'plain' });
  });

  it('describes them in text for a model that cannot take images in tool results', async () => {
    const { meta } = fixture();
    const textOnly = withTextOnlyToolResults(meta);
    expect(await toModel(textOnly.tool_invoke, media)).toEqual({ type: 'text', value: media.fallback });
  });
});
