import {
  createRunToolState,
  ToolRegistry,
  type CatalogRead,
  type CatalogReader,
  type ToolExecSandbox,
} from '@agentq/registry';
import { catalogToolSchema, runSpecSchema, serverDefinitionSchema, silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { buildRunTools } from './build-run-tools.js';

const definition = (id: string, enabled = true) =>
  serverDefinitionSchema.parse({ id, enabled, transport: { type: 'stdio', command: 'node' } });
const catalogTool = (name: string) =>
  catalogToolSchema.parse({ name, description: `Does ${name}.`, inputSchema: { type: 'object', properties: {} } });

/** A reader over fixed reads; ids it does not hold read as removed. */
function readerOf(reads: CatalogRead[]): CatalogReader {
  const byId = new Map(reads.map((read) => [read.serverId, read]));
  const readMany = async (ids: readonly string[]) =>
    new Map(
      ids.map((id) => [
        id,
        byId.get(id) ??
          ({ serverId: id, state: 'cold', tools: [], definition: null, coldReason: 'unknown-server' } as CatalogRead),
      ]),
    );
  return {
    readMany,
    listTools: async (id) => (await readMany([id])).get(id) as CatalogRead,
    listServers: async () => reads.flatMap((read) => (read.definition ? [read.definition] : [])),
  };
}

const ready = (id: string, tools: string[], wireSegment?: string): CatalogRead => ({
  serverId: id,
  state: 'ready',
  tools: tools.map(catalogTool),
  version: `v-${id}`,
  ageMs: 0,
  definition: definition(id),
  wireSegment,
});

async function build(
  reader: CatalogReader,
  options: {
    servers: string[];
    shownNames?: Record<string, string>;
    mcpMode?: 'auto';
    codeMode?: boolean;
    codeSandbox?: ToolExecSandbox;
  },
) {
  return await buildRunTools({
    spec: runSpecSchema.parse({
      assistant: {
        model: 'scripted:test',
        mcpServers: options.servers,
        mcpMode: options.mcpMode,
        settings: options.codeMode === undefined ? undefined : { codeMode: options.codeMode },
        script: [{ text: 'x' }],
      },
      input: { prompt: 'x' },
    }),
    registry: new ToolRegistry(),
    reader,
    caller: { callTool: async () => ({ content: [] }) },
    contextWindow: 100_000,
    state: createRunToolState(),
    shownNames: options.shownNames,
    wrap: (tools) => tools,
    logger: silentLogger(),
    codeSandbox: options.codeSandbox,
  });
}

describe('buildRunTools', () => {
  it('adds tool_exec only when the assistant turns code mode on and the worker has a sandbox', async () => {
    const reader = readerOf([ready('kept', ['ping'])]);
    const sandbox: ToolExecSandbox = async () => ({ ok: true, value: null, logs: [], toolCalls: 0 });
    const names = async (options: { codeMode?: boolean; codeSandbox?: ToolExecSandbox }) =>
      Object.keys((await build(reader, { servers: ['kept'], ...options })).tools).sort();
    expect(await names({ codeMode: true, codeSandbox: sandbox })).toEqual(['mcp__kept__ping', 'tool_exec']);
    expect(await names({ codeMode: true })).toEqual(['mcp__kept__ping']);
    expect(await names({ codeSandbox: sandbox })).toEqual(['mcp__kept__ping']);
    expect(await names({ codeMode: false, codeSandbox: sandbox })).toEqual(['mcp__kept__ping']);
  });

  it('warns about named servers that were removed or turned off, and tells the model', async () => {
    const off: CatalogRead = {
      serverId: 'off',
      state: 'cold',
      tools: [],
      definition: definition('off', false),
      coldReason: 'disabled',
    };
    const tools = await build(readerOf([ready('kept', ['ping']), off]), { servers: ['kept', 'gone', 'off'] });
    expect(tools.warnings.map(({ serverId, reason }) => ({ serverId, reason }))).toEqual([
      { serverId: 'gone', reason: 'removed' },
      { serverId: 'off', reason: 'disabled' },
    ]);
    expect(tools.unavailablePrompt).toContain('gone');
    expect(tools.unavailablePrompt).toContain('off');
    expect(Object.keys(tools.tools)).toEqual(['mcp__kept__ping']);
  });

  it('keeps a name the run already showed while it still means the same tool', async () => {
    const reader = readerOf([ready('team-tools', ['ping'])]);
    const kept = await build(reader, {
      servers: ['team-tools'],
      shownNames: { mcp__teamTools_abc123__ping: 'team-tools:ping' },
    });
    expect(Object.keys(kept.tools)).toEqual(['mcp__teamTools_abc123__ping']);
    expect(kept.wireNames).toEqual({ mcp__teamTools_abc123__ping: 'team-tools:ping' });

    // The old name now belongs to another tool of the run: the current name wins.
    const both = [ready('team-tools', ['ping'], 'teamTools_abc123'), ready('other', ['ping'], 'teamTools')];
    const taken = await build(readerOf(both), {
      servers: ['team-tools', 'other'],
      shownNames: { mcp__teamTools__ping: 'team-tools:ping' },
    });
    expect(taken.wireNames).toEqual({
      mcp__teamTools__ping: 'other:ping',
      mcp__teamTools_abc123__ping: 'team-tools:ping',
    });
  });

  it('says which servers are stale or unavailable from the reads it already made, in one round trip', async () => {
    const stale: CatalogRead = {
      ...ready('slow', ['fetch']),
      status: { state: 'stale', lastAttemptAt: 2, lastSuccessAt: Date.UTC(2026, 0, 1), toolCount: 1, failures: 2 },
    };
    const never: CatalogRead = {
      serverId: 'never',
      state: 'cold',
      tools: [],
      definition: definition('never'),
      coldReason: 'missing',
    };
    const inner = readerOf([ready('kept', ['ping']), stale, never]);
    let readManyCalls = 0;
    let listCalls = 0;
    const counting: CatalogReader = {
      ...inner,
      readMany: async (ids) => {
        readManyCalls += 1;
        return await inner.readMany(ids);
      },
      listServers: async () => {
        listCalls += 1;
        return await inner.listServers();
      },
    };
    // The build memoizes the reader itself: every caller gets one read per build.
    const tools = await build(counting, { servers: [], mcpMode: 'auto' });
    expect(readManyCalls).toBe(1);
    expect(listCalls).toBe(1);
    expect(tools.unavailablePrompt).toContain('- never: unavailable');
    expect(tools.unavailablePrompt).toContain('- slow: stale since 2026-01-01T00:00Z');
    expect(tools.unavailablePrompt).not.toContain('kept');
    const description = (name: string) => (tools.tools[name] as { description?: string }).description;
    expect(description('mcp__slow__fetch')).toContain('[server slow is stale since 2026-01-01T00:00Z');
    expect(description('mcp__kept__ping')).toBe('Does ping.');
  });
});
