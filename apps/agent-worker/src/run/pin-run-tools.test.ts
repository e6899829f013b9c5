import { AgentqError, digestOf, silentLogger, type CatalogEntry } from '@agentq/shared';
import { tool, jsonSchema, type Tool } from 'ai';
import { describe, expect, it } from 'vitest';
import type { RunTools } from './build-run-tools.js';
import { pinRunTools, type RunCatalogSnapshots } from './pin-run-tools.js';

const look = { name: 'look', description: 'Looks.', inputSchema: { type: 'object' as const, properties: {} } };
const gone = { name: 'gone', description: 'Was here.', inputSchema: { type: 'object' as const } };
const entryOf = (tools: CatalogEntry['tools']): CatalogEntry => ({
  tools,
  definitionHash: 'h',
  refreshedAt: 1,
  state: 'connected',
  version: digestOf(tools),
});

/** A live tool that records its calls. */
function liveTool(name: string, calls: string[]): Tool {
  return tool({
    description: `live ${name}`,
    inputSchema: jsonSchema({ type: 'object' }),
    execute: async () => {
      calls.push(name);
      return `${name} ran`;
    },
  }) as Tool;
}

function runToolsOf(tools: Record<string, Tool>, version: string, deferred = 0): RunTools {
  const wireNames = Object.fromEntries(Object.keys(tools).map((name) => [name, `svc:${name.split('__').at(-1)}`]));
  return {
    tools,
    allTools: tools,
    deferred: Array.from({ length: deferred }) as RunTools['deferred'],
    strategy: 'meta',
    deferredPrompt: '',
    catalogVersion: { svc: version },
    inlineTokens: 0,
    deferredTokens: 0,
    schemaDigests: new Map(),
    wireNames,
    warnings: [],
    unavailablePrompt: '',
  };
}

/** Snapshots held in memory; `live` is what the catalog says now. */
function snapshotsOf(pinned: CatalogEntry | null, live: () => CatalogEntry): RunCatalogSnapshots {
  return {
    pinSnapshots: async (pins) => pins.map((pin) => pinned !== null && pin.version === pinned.version),
    readSnapshot: async (_serverId, version) => (pinned?.version === version ? pinned : null),
    read: async () => ({ entry: { success: true, data: live() }, status: null, corrupt: false }),
  } as RunCatalogSnapshots;
}

const options = { ttlSeconds: 60, logger: silentLogger() };
const shownNames = { mcp__svc__look: 'svc:look', mcp__svc__gone: 'svc:gone' };

describe('pinRunTools', () => {
  it('shows the pinned definitions, hides tools the server gained, and refuses a gone tool at call time', async () => {
    const pinned = entryOf([look, gone]);
    const changedLook = { ...look, description: 'Looks, differently.' };
    const now = entryOf([changedLook, { name: 'extra', inputSchema: { type: 'object' as const } }]);
    const calls: string[] = [];
    const built = runToolsOf(
      { mcp__svc__look: liveTool('look', calls), mcp__svc__extra: liveTool('extra', calls) },
      now.version as string,
    );
    const runTools = await pinRunTools({
      ...options,
      runTools: built,
      pinned: { svc: pinned.version as string },
      shownNames,
      snapshots: snapshotsOf(pinned, () => now),
    });
    expect(Object.keys(runTools.tools).sort()).toEqual(['mcp__svc__gone', 'mcp__svc__look']);
    expect(runTools.tools.mcp__svc__look?.description).toBe('Looks.');
    expect(runTools.catalogVersion).toEqual({ svc: pinned.version });
    const execution = { toolCallId: 'c1', messages: [] };
    // Same input schema live: the call goes to the live tool.
    expect(await runTools.tools.mcp__svc__look?.execute?.({}, execution)).toBe('look ran');
    const refused = await Promise.resolve(runTools.tools.mcp__svc__gone?.execute?.({}, execution)).catch(
      (error: unknown) => error,
    );
    expect(AgentqError.isInstance(refused) && refused.code).toBe('TOOL_NOT_FOUND');
    expect(String((refused as Error).message)).toContain('tool gone of MCP server svc is gone');
    expect(calls).toEqual(['look']);
  });

  it('leaves the live tools (and moves the pin) when the pinned snapshot is gone', async () => {
    const now = entryOf([look]);
    const built = runToolsOf({ mcp__svc__look: liveTool('look', []) }, now.version as string);
    const runTools = await pinRunTools({
      ...options,
      runTools: built,
      pinned: { svc: 'expired-version' },
      shownNames,
      snapshots: snapshotsOf(null, () => now),
    });
    expect(runTools).toBe(built);
  });
});
