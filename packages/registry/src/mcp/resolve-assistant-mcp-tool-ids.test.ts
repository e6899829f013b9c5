import { describe, expect, it } from 'vitest';
import { FakeCatalogReader, makeCatalogTool, makeDefinition } from '../test-support/fixtures.js';
import { resolveAssistantMcpToolIds } from './resolve-assistant-mcp-tool-ids.js';

function reader() {
  const fake = new FakeCatalogReader();
  fake.setReady(makeDefinition({ id: 'gh', disabledTools: ['delete_repo'] }), [
    makeCatalogTool('create_issue'),
    makeCatalogTool('delete_repo'),
    makeCatalogTool('list_issues'),
  ]);
  fake.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file')]);
  fake.setReady(makeDefinition({ id: 'off', enabled: false }), [makeCatalogTool('x')]);
  fake.setCold('cold', 'missing', makeDefinition({ id: 'cold' }));
  return fake;
}

describe('resolveAssistantMcpToolIds', () => {
  it('manual (the default) uses only the named servers, minus both disable lists', async () => {
    const ids = await resolveAssistantMcpToolIds(
      { mcpMode: 'manual', mcpServers: ['gh'], disabledTools: ['gh:list_issues'] },
      reader(),
    );
    expect([...ids]).toEqual(['gh:create_issue']);
  });

  it('manual with no servers returns nothing and never reads the catalog', async () => {
    const fake = reader();
    expect(
      (await resolveAssistantMcpToolIds({ mcpMode: 'manual', mcpServers: [], disabledTools: [] }, fake)).size,
    ).toBe(0);
    expect(fake.readManyCalls).toEqual([]);
    expect(fake.listServersCalls).toBe(0);
  });

  it('auto uses every enabled server', async () => {
    const ids = await resolveAssistantMcpToolIds({ mcpMode: 'auto', mcpServers: [], disabledTools: [] }, reader());
    expect([...ids].sort()).toEqual(['fs:read_file', 'gh:create_issue', 'gh:list_issues']);
  });

  it('disabled uses none and reads nothing', async () => {
    const fake = reader();
    expect(
      (await resolveAssistantMcpToolIds({ mcpMode: 'disabled', mcpServers: ['gh'], disabledTools: [] }, fake)).size,
    ).toBe(0);
    expect(fake.readManyCalls).toEqual([]);
  });

  it('a cold or disabled server contributes nothing and does not block the others', async () => {
    const ids = await resolveAssistantMcpToolIds(
      { mcpMode: 'manual', mcpServers: ['cold', 'off', 'fs', 'ghost'], disabledTools: [] },
      reader(),
    );
    expect([...ids]).toEqual(['fs:read_file']);
  });

  it('reads all named servers in one batch', async () => {
    const fake = reader();
    await resolveAssistantMcpToolIds({ mcpMode: 'manual', mcpServers: ['gh', 'fs', 'gh'], disabledTools: [] }, fake);
    expect(fake.readManyCalls).toEqual([['gh', 'fs']]);
  });
});
