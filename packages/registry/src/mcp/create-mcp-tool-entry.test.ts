import { AgentqError, digestOf } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { callOptions, FakeMcpCaller, makeCatalogTool, makeDefinition } from '../test-support/fixtures.js';
import { validateToolInput } from '../schema/validate-tool-input.js';
import { createMcpToolEntry } from './create-mcp-tool-entry.js';
import { summarizeMcpResult } from './summarize-mcp-result.js';

const definition = makeDefinition({ id: 'files', name: 'Team Files' });
const catalogTool = makeCatalogTool('read_file', { description: 'Read a file. Returns text.\nMore detail.' });

describe('createMcpToolEntry', () => {
  it('builds an entry with namespace, label, blurb, defer auto and a schema digest', () => {
    const entry = createMcpToolEntry({
      definition,
      tool: catalogTool,
      wireName: 'mcp__files__readFile',
      caller: new FakeMcpCaller(),
    });
    expect(entry).toMatchObject({
      name: 'mcp__files__readFile',
      namespace: 'mcp:files',
      namespaceLabel: 'mcp:Team Files',
      description: 'Read a file.',
      defer: 'auto',
      mcp: {
        serverId: 'files',
        toolName: 'read_file',
        toolId: 'files:read_file',
        schemaDigest: digestOf(catalogTool.inputSchema),
      },
    });
    expect(entry.tool.description).toBe('Read a file. Returns text.\nMore detail.');
    expect(entry.tool.needsApproval).toBeUndefined();
  });

  it('applies only when its tool id is selected', () => {
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller: new FakeMcpCaller() });
    expect(entry.applies?.({ mcpToolIds: new Set(['files:read_file']) })).toBe(true);
    expect(entry.applies?.({ mcpToolIds: new Set(['files:other', 'other:read_file']) })).toBe(false);
  });

  it('alwaysAsk gives defer never and needsApproval true, from the same setting', () => {
    for (const alwaysAsk of [['read_file'], ['*']]) {
      const entry = createMcpToolEntry({
        definition: makeDefinition({ id: 'files', alwaysAsk }),
        tool: catalogTool,
        wireName: 'w',
        caller: new FakeMcpCaller(),
      });
      expect(entry.defer).toBe('never');
      expect(entry.tool.needsApproval).toBe(true);
    }
  });

  it('validates input against the cached JSON schema', async () => {
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller: new FakeMcpCaller() });
    expect((await validateToolInput(entry.tool.inputSchema, { value: 'x' })).success).toBe(true);
    expect((await validateToolInput(entry.tool.inputSchema, {})).success).toBe(false);
  });

  it('execute goes through the caller with the server, tool, input, signal and call id', async () => {
    const caller = new FakeMcpCaller(() => ({ content: [{ type: 'text', text: 'file body' }] }));
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller });
    const controller = new AbortController();
    const output = await entry.tool.execute?.({ value: 'a' }, { ...callOptions, abortSignal: controller.signal });
    expect(output).toBe('file body');
    expect(caller.requests).toEqual([
      {
        serverId: 'files',
        definition,
        toolName: 'read_file',
        input: { value: 'a' },
        signal: controller.signal,
        toolCallId: 'call-1',
      },
    ]);
  });

  it('refuses when the server is no longer enabled, without calling it', async () => {
    const caller = new FakeMcpCaller();
    for (const current of [makeDefinition({ id: 'files', enabled: false }), null]) {
      const entry = createMcpToolEntry({
        definition,
        tool: catalogTool,
        wireName: 'w',
        caller,
        currentDefinition: async () => current,
      });
      const error: unknown = await Promise.resolve(entry.tool.execute?.({ value: 'a' }, callOptions)).catch(
        (caught: unknown) => caught,
      );
      expect(AgentqError.isInstance(error) && error.code).toBe('MCP_SERVER_NOT_ENABLED');
      expect((error as Error).message).toBe('MCP server files is not enabled');
    }
    expect(caller.requests).toEqual([]);
  });

  it('an isError result becomes a tool error carrying the result text', async () => {
    const caller = new FakeMcpCaller(() => ({ isError: true, content: [{ type: 'text', text: 'no such file: a' }] }));
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller });
    const error: unknown = await Promise.resolve(entry.tool.execute?.({ value: 'a' }, callOptions)).catch(
      (caught: unknown) => caught,
    );
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_TOOL_ERROR');
    expect((error as Error).message).toBe('no such file: a');
  });
});

describe('createMcpToolEntry result limit', () => {
  it('cuts a huge text result to maxResultBytes before returning it, naming what was dropped', async () => {
    const huge = `${'€'.repeat(1_000)}tail`;
    const caller = new FakeMcpCaller(() => ({ content: [{ type: 'text', text: huge }] }));
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller, maxResultBytes: 1_000 });
    const output = (await entry.tool.execute?.({ value: 'a' }, callOptions)) as string;
    expect(typeof output).toBe('string');
    // 333 whole euro signs (999 bytes); the 334th would cross the limit.
    expect(output.startsWith(`${'€'.repeat(333)}\n[tool result truncated: `)).toBe(true);
    expect(output).toContain(
      `${Buffer.byteLength(huge) - 999} of ${Buffer.byteLength(huge)} bytes dropped; the limit is 1000 bytes`,
    );
    expect(output).not.toContain('tail');
  });

  it('cuts the text of an error result the same way', async () => {
    const caller = new FakeMcpCaller(() => ({ isError: true, content: [{ type: 'text', text: 'e'.repeat(5_000) }] }));
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller, maxResultBytes: 64 });
    const error: unknown = await Promise.resolve(entry.tool.execute?.({ value: 'a' }, callOptions)).catch(
      (caught: unknown) => caught,
    );
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_TOOL_ERROR');
    expect((error as Error).message).toMatch(/^e{64}\n\[tool result truncated: 4936 of 5000 bytes dropped/);
  });

  it('applies the 1 MiB default without a setting', async () => {
    const caller = new FakeMcpCaller(() => ({ content: [{ type: 'text', text: 'y'.repeat(1_048_577) }] }));
    const entry = createMcpToolEntry({ definition, tool: catalogTool, wireName: 'w', caller });
    const output = (await entry.tool.execute?.({ value: 'a' }, callOptions)) as string;
    expect(output).toContain('1 of 1048577 bytes dropped; the limit is 1048576 bytes');
  });
});

describe('summarizeMcpResult', () => {
  it('summarises images, audio and binary resources as text', () => {
    const text = summarizeMcpResult({
      content: [
        { type: 'text', text: 'Here it is' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'audio', data: 'AAAA', mimeType: 'audio/wav' },
        { type: 'resource', resource: { uri: 'file:///a.bin', mimeType: 'application/octet-stream', blob: 'AAAA' } },
        { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
        { type: 'resource_link', uri: 'file:///b', name: 'b' },
      ],
    });
    expect(text.split('\n')).toEqual([
      'Here it is',
      '[image: image/png, not shown]',
      '[audio: audio/wav, not shown]',
      '[resource: file:///a.bin (application/octet-stream), not shown]',
      'inline text',
      '[resource link: b file:///b]',
    ]);
    expect(text).not.toContain('iVBORw0KGgo');
  });

  // A server chooses these texts; a pattern over them with a quadratic worst case held the event
  // loop for seconds. Finishing within the test's timeout at all is the assertion.
  it('names a resource link without its trailing blanks, in one pass over a hostile name', () => {
    const blanks = ' '.repeat(200_000);
    expect(summarizeMcpResult({ content: [{ type: 'resource_link', uri: '', name: `a ${blanks}` }] })).toBe(
      '[resource link: a]',
    );
    expect(summarizeMcpResult({ content: [{ type: 'resource_link', uri: 'file:///c', name: `${blanks}x` }] })).toBe(
      `[resource link: ${blanks}x file:///c]`,
    );
  });

  it('falls back to the structured content when there is no content', () => {
    expect(summarizeMcpResult({ content: [], structuredContent: { total: 3 } })).toBe('{"total":3}');
  });
});
