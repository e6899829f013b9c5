import { silentLogger } from '@agentq/shared';
import type { ToolEnrichmentStore } from '@agentq/store';
import { describe, expect, it } from 'vitest';
import { syncMcpToolsToRegistry } from '../mcp/sync-mcp-tools-to-registry.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { FakeCatalogReader, FakeMcpCaller, makeCatalogTool, makeDefinition } from '../test-support/fixtures.js';
import { createExamplesRefresher } from './create-examples-refresher.js';
import { toolEnrichmentDigest } from './tool-enrichment-text.js';

/** A store whose reads wait for `release`, counting them. */
function gatedStore(entries: Map<string, string[]>) {
  const state = { reads: 0, release: () => {} };
  let gate = Promise.resolve();
  const store: ToolEnrichmentStore = {
    missing: async () => [],
    write: async () => {},
    read: async (digests) => {
      state.reads += 1;
      await gate;
      if (entries.has('fail')) throw new Error('redis down');
      return new Map(digests.flatMap((digest) => (entries.has(digest) ? [[digest, entries.get(digest) ?? []]] : [])));
    },
  };
  const hold = () => {
    gate = new Promise<void>((resolve) => (state.release = resolve));
  };
  return { store, state, hold };
}

async function syncedRegistry() {
  const reader = new FakeCatalogReader();
  reader.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file')]);
  const registry = new ToolRegistry();
  await syncMcpToolsToRegistry(registry, reader, {
    selectedToolIds: new Set(['fs:read_file']),
    caller: new FakeMcpCaller(),
  });
  return registry;
}

describe('createExamplesRefresher', () => {
  it('coalesces a burst of requests for one server into one running and one pending re-read', async () => {
    const registry = await syncedRegistry();
    const entries = new Map([[toolEnrichmentDigest(makeCatalogTool('read_file')), ['open my quarterly spreadsheet']]]);
    const { store, state, hold } = gatedStore(entries);
    const refresher = createExamplesRefresher({ registry, store, logger: silentLogger() });
    hold();
    for (let i = 0; i < 5; i += 1) refresher.request('fs');
    await new Promise((resolve) => setImmediate(resolve));
    expect(state.reads).toBe(1);
    state.release();
    await refresher.idle();
    expect(state.reads).toBe(2);
    expect(registry.searchIndex?.search('quarterly spreadsheet').map((hit) => hit.entry.name)).toEqual([
      'mcp__fs__readFile',
    ]);
    await refresher.close();
    refresher.request('fs');
    expect(state.reads).toBe(2);
  });

  it('logs a failing read instead of throwing', async () => {
    const registry = await syncedRegistry();
    const { store, state } = gatedStore(new Map([['fail', []]]));
    const warnings: unknown[] = [];
    const logger = { ...silentLogger(), warn: (...args: unknown[]) => warnings.push(args) } as ReturnType<
      typeof silentLogger
    >;
    const refresher = createExamplesRefresher({ registry, store, logger });
    refresher.request('fs');
    await refresher.idle();
    expect(state.reads).toBe(1);
    expect(warnings).toHaveLength(1);
  });

  it('logs how many tools it looked up and how many had examples, and a server it does not hold apart', async () => {
    const registry = await syncedRegistry();
    const debug: unknown[][] = [];
    const logger = { ...silentLogger(), debug: (...args: unknown[]) => debug.push(args) } as ReturnType<
      typeof silentLogger
    >;
    const entries = new Map<string, string[]>();
    const { store } = gatedStore(entries);
    const refresher = createExamplesRefresher({ registry, store, logger });
    refresher.request('fs');
    await refresher.idle();
    entries.set(toolEnrichmentDigest(makeCatalogTool('read_file')), ['open my quarterly spreadsheet']);
    refresher.request('fs');
    await refresher.idle();
    refresher.request('gh');
    await refresher.idle();
    expect(debug.map(([fields]) => fields)).toEqual([
      { serverId: 'fs', tools: 1, withExamples: 0 },
      { serverId: 'fs', tools: 1, withExamples: 1 },
      { serverId: 'gh', tools: 0, reason: 'not-held' },
    ]);
    await refresher.close();
  });
});
