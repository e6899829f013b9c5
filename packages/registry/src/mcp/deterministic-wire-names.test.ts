import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeCatalogReader, FakeMcpCaller, makeCatalogTool, makeDefinition } from '../test-support/fixtures.js';
import { isValidToolName } from '../wire-names/tool-names.js';
import { syncMcpToolsToRegistry } from './sync-mcp-tools-to-registry.js';

// One catalog with every kind of clash: server ids that share a slug, tool names that share a
// slug, names too long for the limit, digit-leading ids.
const longTool = 'export_every_single_archived_conversation_transcript_as_csv_file';
const catalog: Record<string, string[]> = {
  'team-tools': ['ping', 'get-sum', 'get_sum', longTool],
  team_tools: ['ping', 'get_sum', `${longTool}_v2`],
  'team--tools': ['ping'],
  'team-tools-': ['ping', 'echo'],
  teamtools: ['ping'],
  gh: ['create_issue', 'ping', '!!!'],
  '123server': ['ping'],
  '123-server': ['ping'],
  'a-very-long-server-identifier-that-goes-on-and-on': [longTool, 'ping'],
  a_very_long_server_identifier_that_goes_on_and_on: [longTool, 'ping'],
};
const allToolIds = Object.entries(catalog).flatMap(([serverId, tools]) => tools.map((tool) => `${serverId}:${tool}`));

function storeReader(): FakeCatalogReader {
  const reader = new FakeCatalogReader();
  for (const [serverId, tools] of Object.entries(catalog)) {
    reader.setReady(
      makeDefinition({ id: serverId }),
      tools.map((tool) => makeCatalogTool(tool)),
    );
  }
  return reader;
}

/** A registry synced batch by batch, in the given order; its names by tool id. */
async function namesAfter(batches: string[][]): Promise<Map<string, string>> {
  const reader = storeReader();
  const registry = new ToolRegistry();
  for (const batch of batches) {
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: new Set(batch), caller: new FakeMcpCaller() });
  }
  const names = new Map<string, string>();
  for (const entry of registry.getAll()) if (entry.mcp) names.set(entry.mcp.toolId, entry.name);
  return names;
}

const batchesArbitrary = fc.array(
  fc.subarray(allToolIds).chain((ids) => fc.shuffledSubarray(ids)),
  {
    minLength: 1,
    maxLength: 4,
  },
);

describe('deterministic wire names', () => {
  it('registries built from any subsets and orders of one catalog name every shared tool identically', async () => {
    const reference = await namesAfter([allToolIds]);
    expect(reference.size).toBe(allToolIds.length);
    expect(new Set(reference.values()).size).toBe(allToolIds.length);
    for (const name of reference.values()) expect(isValidToolName(name)).toBe(true);

    await fc.assert(
      fc.asyncProperty(batchesArbitrary, batchesArbitrary, async (left, right) => {
        const [a, b] = await Promise.all([namesAfter(left), namesAfter(right)]);
        for (const [toolId, name] of a) {
          expect(name).toBe(reference.get(toolId));
          if (b.has(toolId)) expect(b.get(toolId)).toBe(name);
        }
        for (const [toolId, name] of b) expect(name).toBe(reference.get(toolId));
        // Within one registry, names stay injective.
        expect(new Set(a.values()).size).toBe(a.size);
      }),
      { numRuns: 60 },
    );
  }, 120_000);

  it('keeps plain names where nothing clashes', async () => {
    const names = await namesAfter([allToolIds]);
    expect(names.get('gh:create_issue')).toBe('mcp__gh__createIssue');
    expect(names.get('team-tools-:echo')).toMatch(/^mcp__teamTools_[0-9a-f]{6,}__echo$/);
    expect(names.get('teamtools:ping')).toBe('mcp__teamtools__ping');
    expect(names.get('123server:ping')).toBe('mcp___123server__ping');
  });
});
