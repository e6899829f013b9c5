import { describe, expect, it, vi } from 'vitest';
import { ToolRegistry } from '../registry/tool-registry.js';
import {
  FakeCatalogReader,
  FakeMcpCaller,
  makeCatalogTool,
  makeDefinition,
  makeEntry,
} from '../test-support/fixtures.js';
import type { ToolEnrichmentStore } from '@agentq/store';
import { toolEnrichmentDigest } from '../enrichment/tool-enrichment-text.js';
import { refreshServerExamples, syncMcpToolsToRegistry } from './sync-mcp-tools-to-registry.js';

const caller = new FakeMcpCaller();

function names(registry: ToolRegistry, namespace?: string) {
  return registry.getAll(namespace ? { namespace } : {}).map((entry) => entry.name);
}

function world() {
  const reader = new FakeCatalogReader();
  reader.setReady(makeDefinition({ id: 'gh', name: 'GitHub' }), [
    makeCatalogTool('create_issue'),
    makeCatalogTool('list_issues'),
  ]);
  reader.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file')]);
  return { reader, registry: new ToolRegistry() };
}

async function sync(registry: ToolRegistry, reader: FakeCatalogReader, ids: string[]) {
  return syncMcpToolsToRegistry(registry, reader, { selectedToolIds: new Set(ids), caller });
}

describe('syncMcpToolsToRegistry', () => {
  it('an empty selection reads nothing', async () => {
    const { reader, registry } = world();
    const result = await sync(registry, reader, []);
    expect(reader.readManyCalls).toEqual([]);
    expect(result.catalogVersion).toEqual({});
    expect(registry.size).toBe(0);
  });

  it('reads only servers owning a selected tool, in one batch, and registers all their tools', async () => {
    const { reader, registry } = world();
    const result = await sync(registry, reader, ['gh:create_issue']);
    expect(reader.readManyCalls).toEqual([['gh']]);
    expect(names(registry)).toEqual(['mcp__gh__createIssue', 'mcp__gh__listIssues']);
    const entry = registry.getByName('mcp__gh__createIssue');
    expect(entry).toMatchObject({ namespace: 'mcp:gh', namespaceLabel: 'mcp:GitHub', defer: 'auto' });
    expect(result.wireNames).toEqual(new Map([['gh:create_issue', 'mcp__gh__createIssue']]));
    expect(result.catalogVersion).toEqual({ gh: 'v-create_issue,list_issues' });
    expect(registry.selectActive({ mcpToolIds: new Set(['gh:create_issue']) }).map((e) => e.name)).toEqual([
      'mcp__gh__createIssue',
    ]);
  });

  it("registers entries that cut results to the sync's maxResultBytes", async () => {
    const { reader, registry } = world();
    const bigCaller = new FakeMcpCaller(() => ({ content: [{ type: 'text', text: 'q'.repeat(300) }] }));
    await syncMcpToolsToRegistry(registry, reader, {
      selectedToolIds: new Set(['fs:read_file']),
      caller: bigCaller,
      maxResultBytes: 100,
    });
    const output = await registry
      .getByName('mcp__fs__readFile')
      ?.tool.execute?.({ value: 'a' }, { toolCallId: 'c', messages: [] });
    expect(output).toBe(
      `${'q'.repeat(100)}\n[tool result truncated: 200 of 300 bytes dropped; the limit is 100 bytes (AGENTQ_TOOL_RESULT_MAX_BYTES)]`,
    );
  });

  it('a sync where nothing changed registers nothing again', async () => {
    const { reader, registry } = world();
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    const register = vi.spyOn(registry, 'register');
    const deregister = vi.spyOn(registry, 'deregister');
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    expect(register).not.toHaveBeenCalled();
    expect(deregister).not.toHaveBeenCalled();
  });

  it('a changed version replaces the entry (changed schema)', async () => {
    const { reader, registry } = world();
    await sync(registry, reader, ['fs:read_file']);
    const before = registry.getByName('mcp__fs__readFile');
    reader.setReady(
      makeDefinition({ id: 'fs' }),
      [makeCatalogTool('read_file', { inputSchema: { type: 'object', properties: { path: { type: 'string' } } } })],
      'v2',
    );
    await sync(registry, reader, ['fs:read_file']);
    const after = registry.getByName('mcp__fs__readFile');
    expect(after).not.toBe(before);
    expect(after?.mcp?.schemaDigest).not.toBe(before?.mcp?.schemaDigest);
    expect(registry.size).toBe(1);
  });

  it('a definition change that keeps the version (alwaysAsk, display name) still re-registers', async () => {
    const { reader, registry } = world();
    await sync(registry, reader, ['fs:read_file']);
    reader.setReady(makeDefinition({ id: 'fs', name: 'Files', alwaysAsk: ['read_file'] }), [
      makeCatalogTool('read_file'),
    ]);
    await sync(registry, reader, ['fs:read_file']);
    expect(registry.getByName('mcp__fs__readFile')).toMatchObject({ defer: 'never', namespaceLabel: 'mcp:Files' });
    expect(registry.getByName('mcp__fs__readFile')?.tool.needsApproval).toBe(true);
  });

  it('a successful read that no longer lists a tool evicts it', async () => {
    const { reader, registry } = world();
    await sync(registry, reader, ['gh:create_issue']);
    reader.setReady(makeDefinition({ id: 'gh', name: 'GitHub' }), [makeCatalogTool('create_issue')]);
    await sync(registry, reader, ['gh:create_issue']);
    expect(names(registry)).toEqual(['mcp__gh__createIssue']);
  });

  it('a warmed-empty server loses its tools (a successful read listing none)', async () => {
    const { reader, registry } = world();
    await sync(registry, reader, ['fs:read_file']);
    reader.setReady(makeDefinition({ id: 'fs' }), []);
    await sync(registry, reader, ['fs:read_file']);
    expect(names(registry)).toEqual([]);
  });

  it.each(['missing', 'corrupt', 'definition-changed'] as const)('a cold read (%s) never evicts', async (reason) => {
    const { reader, registry } = world();
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    reader.setCold('gh', reason, makeDefinition({ id: 'gh' }));
    const result = await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    expect(names(registry)).toEqual(['mcp__fs__readFile', 'mcp__gh__createIssue', 'mcp__gh__listIssues']);
    expect(result.catalogVersion).toEqual({ fs: 'v-read_file' });
  });

  it('a stale server keeps serving its last known good list', async () => {
    const { reader, registry } = world();
    await sync(registry, reader, ['fs:read_file']);
    const read = reader.reads.get('fs');
    if (read) read.status = { state: 'stale', error: 'timeout', lastAttemptAt: 1, toolCount: 1, failures: 3 };
    await sync(registry, reader, ['fs:read_file']);
    expect(names(registry)).toEqual(['mcp__fs__readFile']);
  });

  it.each(['disabled', 'unknown-server'] as const)('a %s server is evicted', async (reason) => {
    const { reader, registry } = world();
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    reader.setCold('gh', reason, reason === 'disabled' ? makeDefinition({ id: 'gh', enabled: false }) : null);
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    expect(names(registry)).toEqual(['mcp__fs__readFile']);
  });

  it('one failing server does not stop the others', async () => {
    const { reader, registry } = world();
    reader.setCold('gh', 'corrupt', makeDefinition({ id: 'gh' }));
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    expect(names(registry)).toEqual(['mcp__fs__readFile']);
  });

  it('never touches entries of other namespaces, or of servers outside the sync', async () => {
    const { reader, registry } = world();
    registry.register(makeEntry('web_search', { namespace: 'web' }));
    registry.register(makeEntry('mcp__gh__createIssue_lookalike', { namespace: 'kb' }));
    await sync(registry, reader, ['gh:create_issue']);
    reader.setCold('gh', 'unknown-server');
    await sync(registry, reader, ['gh:create_issue', 'fs:read_file']);
    expect(names(registry)).toEqual(['mcp__fs__readFile', 'mcp__gh__createIssue_lookalike', 'web_search']);
  });

  it('overlapping concurrent syncs of different selections both survive', async () => {
    const { reader, registry } = world();
    await Promise.all([sync(registry, reader, ['gh:create_issue']), sync(registry, reader, ['fs:read_file'])]);
    expect(names(registry)).toEqual(['mcp__fs__readFile', 'mcp__gh__createIssue', 'mcp__gh__listIssues']);
    await Promise.all([
      sync(registry, reader, ['gh:list_issues']),
      sync(registry, reader, ['fs:read_file', 'gh:create_issue']),
    ]);
    expect(names(registry)).toEqual(['mcp__fs__readFile', 'mcp__gh__createIssue', 'mcp__gh__listIssues']);
  });

  it('skips tools the server disables', async () => {
    const reader = new FakeCatalogReader();
    reader.setReady(makeDefinition({ id: 'gh', disabledTools: ['list_issues'] }), [
      makeCatalogTool('create_issue'),
      makeCatalogTool('list_issues'),
    ]);
    const registry = new ToolRegistry();
    await sync(registry, reader, ['gh:create_issue']);
    expect(names(registry)).toEqual(['mcp__gh__createIssue']);
  });

  it('names colliding-slug servers from the store, whatever this registry synced before', async () => {
    const reader = new FakeCatalogReader();
    reader.setReady(makeDefinition({ id: 'my-server' }), [makeCatalogTool('ping')]);
    reader.setReady(makeDefinition({ id: 'my_server' }), [makeCatalogTool('ping')]);
    const one = new ToolRegistry();
    const first = await sync(one, reader, ['my-server:ping']);
    const both = new ToolRegistry();
    const together = await sync(both, reader, ['my_server:ping', 'my-server:ping']);
    // Same name for my-server:ping whether or not my_server was synced too, and never the plain
    // slug, which no single server owns while both are enabled.
    expect(first.wireNames.get('my-server:ping')).toBe(together.wireNames.get('my-server:ping'));
    expect(names(both)).not.toContain('mcp__myServer__ping');
    expect(new Set(both.getAll().map((entry) => entry.mcp?.toolId))).toEqual(
      new Set(['my-server:ping', 'my_server:ping']),
    );
    const later = await sync(one, reader, ['my_server:ping']);
    expect(later.wireNames.get('my_server:ping')).toBe(together.wireNames.get('my_server:ping'));
  });

  it('gives a server its plain slug back once its look-alike is disabled', async () => {
    const reader = new FakeCatalogReader();
    reader.setReady(makeDefinition({ id: 'my-server' }), [makeCatalogTool('ping')]);
    reader.setReady(makeDefinition({ id: 'my_server' }), [makeCatalogTool('ping')]);
    const registry = new ToolRegistry();
    await sync(registry, reader, ['my-server:ping']);
    reader.setReady(makeDefinition({ id: 'my_server', enabled: false }), [makeCatalogTool('ping')]);
    const result = await sync(registry, reader, ['my-server:ping']);
    expect(result.wireNames.get('my-server:ping')).toBe('mcp__myServer__ping');
    expect(names(registry)).toEqual(['mcp__myServer__ping']);
  });

  it('renaming a server display name changes labels but never wire names (digest part included)', async () => {
    const longTool = 'export_every_single_archived_conversation_transcript_as_csv_file';
    const reader = new FakeCatalogReader();
    reader.setReady(makeDefinition({ id: 'support-desk', name: 'Support' }), [
      makeCatalogTool(longTool),
      makeCatalogTool('ping'),
    ]);
    const registry = new ToolRegistry();
    const first = await sync(registry, reader, [`support-desk:${longTool}`, 'support-desk:ping']);
    expect(first.wireNames.get(`support-desk:${longTool}`)).toMatch(/_[0-9a-f]{10}$/);
    reader.setReady(makeDefinition({ id: 'support-desk', name: 'Customer Care' }), [
      makeCatalogTool(longTool),
      makeCatalogTool('ping'),
    ]);
    const second = await sync(registry, reader, [`support-desk:${longTool}`, 'support-desk:ping']);
    expect(second.wireNames).toEqual(first.wireNames);
    expect(registry.getAll().map((entry) => entry.namespaceLabel)).toEqual(['mcp:Customer Care', 'mcp:Customer Care']);
  });

  it('gives same-server tools with one slug distinct names', async () => {
    const reader = new FakeCatalogReader();
    reader.setReady(makeDefinition({ id: 'calc' }), [makeCatalogTool('get-sum'), makeCatalogTool('get_sum')]);
    const registry = new ToolRegistry();
    const result = await sync(registry, reader, ['calc:get-sum', 'calc:get_sum']);
    expect(registry.size).toBe(2);
    expect(result.wireNames.get('calc:get-sum')).not.toBe(result.wireNames.get('calc:get_sum'));
  });
});

describe('syncMcpToolsToRegistry with stored enrichments', () => {
  function enrichmentStore(entries: Map<string, string[]>): ToolEnrichmentStore & { reads: string[][] } {
    const reads: string[][] = [];
    return {
      reads,
      missing: async () => [],
      write: async () => {},
      read: async (digests) => {
        reads.push([...digests]);
        return new Map(digests.flatMap((digest) => (entries.has(digest) ? [[digest, entries.get(digest) ?? []]] : [])));
      },
    };
  }

  it('indexes each changed tool once with its examples, and reads nothing for an unchanged server', async () => {
    const { reader, registry } = world();
    const tool = makeCatalogTool('read_file');
    const stored = new Map([[toolEnrichmentDigest(tool), ['open my quarterly spreadsheet']]]);
    const enrichments = enrichmentStore(stored);
    const options = { selectedToolIds: new Set(['fs:read_file', 'gh:create_issue']), caller, enrichments };
    await syncMcpToolsToRegistry(registry, reader, options);
    const index = registry.searchIndex as NonNullable<ToolRegistry['searchIndex']>;
    expect(index.stats.documentWrites).toBe(3);
    expect(index.search('quarterly spreadsheet').map((hit) => hit.entry.name)).toEqual(['mcp__fs__readFile']);
    expect(enrichments.reads).toHaveLength(1);

    await syncMcpToolsToRegistry(registry, reader, options);
    expect(enrichments.reads).toHaveLength(1);

    // A new tool text has no examples yet: the old ones go with the old text.
    reader.setReady(
      makeDefinition({ id: 'fs' }),
      [makeCatalogTool('read_file', { description: 'Reads a file.' })],
      'v2',
    );
    await syncMcpToolsToRegistry(registry, reader, options);
    expect(enrichments.reads).toHaveLength(2);
    expect(index.search('quarterly spreadsheet')).toEqual([]);
  });

  it('drops the examples of tools that are gone, keeping those of tools still offered', async () => {
    const { reader, registry } = world();
    const stored = new Map([
      [toolEnrichmentDigest(makeCatalogTool('create_issue')), ['file a bug about the login page']],
      [toolEnrichmentDigest(makeCatalogTool('list_issues')), ['which bugs are open']],
      [toolEnrichmentDigest(makeCatalogTool('read_file')), ['open my quarterly spreadsheet']],
    ]);
    const options = {
      selectedToolIds: new Set(['gh:create_issue', 'fs:read_file']),
      caller,
      enrichments: enrichmentStore(stored),
    };
    await syncMcpToolsToRegistry(registry, reader, options);
    const index = registry.searchIndex as NonNullable<ToolRegistry['searchIndex']>;
    expect(index.retained.examples).toBe(3);

    reader.setReady(makeDefinition({ id: 'gh', name: 'GitHub' }), [makeCatalogTool('create_issue')], 'v2');
    await syncMcpToolsToRegistry(registry, reader, options);
    expect(index.retained.examples).toBe(2);
    expect(index.search('which bugs are open').map((hit) => hit.entry.name)).not.toContain('mcp__gh__listIssues');
    expect(index.search('login page bug').map((hit) => hit.entry.name)[0]).toBe('mcp__gh__createIssue');

    reader.setCold('fs', 'unknown-server');
    await syncMcpToolsToRegistry(registry, reader, options);
    expect(names(registry)).toEqual(['mcp__gh__createIssue']);
    expect(index.retained.examples).toBe(1);
  });

  it('an older read that waited for examples does not overwrite what a later sync applied meanwhile', async () => {
    const { reader, registry } = world();
    let release: (() => void) | undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const enrichments: ToolEnrichmentStore = {
      missing: async () => [],
      write: async () => {},
      read: async () => {
        calls += 1;
        if (calls === 1) await held;
        return new Map();
      },
    };
    const options = { selectedToolIds: new Set(['fs:read_file']), caller, enrichments };
    const older = syncMcpToolsToRegistry(registry, reader, options);
    await vi.waitFor(() => expect(calls).toBe(1));
    reader.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file', { description: 'Reads v2.' })], 'v2');
    await syncMcpToolsToRegistry(registry, reader, options);
    release?.();
    await older;
    expect(registry.getByName('mcp__fs__readFile')?.description).toBe('Reads v2.');
  });

  it('a failing enrichment store leaves the sync and its tools intact', async () => {
    const { reader, registry } = world();
    const enrichments: ToolEnrichmentStore = {
      missing: async () => [],
      write: async () => {},
      read: async () => Promise.reject(new Error('redis down')),
    };
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: new Set(['fs:read_file']), caller, enrichments });
    expect(names(registry)).toEqual(['mcp__fs__readFile']);
  });

  it('refreshServerExamples indexes examples stored after the sync, for the servers the registry holds', async () => {
    const { reader, registry } = world();
    const stored = new Map<string, string[]>();
    const enrichments = enrichmentStore(stored);
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds: new Set(['fs:read_file']), caller, enrichments });
    const index = registry.searchIndex as NonNullable<ToolRegistry['searchIndex']>;
    expect(index.search('quarterly spreadsheet')).toEqual([]);

    stored.set(toolEnrichmentDigest(makeCatalogTool('read_file')), ['open my quarterly spreadsheet']);
    expect(await refreshServerExamples(registry, enrichments, 'fs')).toEqual({ tools: 1, withExamples: 1 });
    expect(index.search('quarterly spreadsheet').map((hit) => hit.entry.name)).toEqual(['mcp__fs__readFile']);

    // A server this registry never synced costs no read.
    const reads = enrichments.reads.length;
    expect(await refreshServerExamples(registry, enrichments, 'gh')).toEqual({
      tools: 0,
      withExamples: 0,
      skipped: 'not-held',
    });
    expect(enrichments.reads).toHaveLength(reads);
  });

  it('refreshServerExamples leaves a server a sync replaced during its read to that sync', async () => {
    const { reader, registry } = world();
    const old = makeCatalogTool('read_file');
    const stored = new Map([[toolEnrichmentDigest(old), ['open my quarterly spreadsheet']]]);
    const selectedToolIds = new Set(['fs:read_file']);
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds, caller });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = enrichmentStore(stored);
    const refreshing = refreshServerExamples(
      registry,
      { ...slow, read: async (digests) => gate.then(() => slow.read(digests)) },
      'fs',
    );
    reader.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file', { description: 'Reads.' })], 'v2');
    await syncMcpToolsToRegistry(registry, reader, { selectedToolIds, caller });
    release();
    expect(await refreshing).toEqual({ tools: 1, withExamples: 0, skipped: 'replaced' });
    expect(registry.searchIndex?.search('quarterly spreadsheet')).toEqual([]);
  });

  /**
   * A registry (that synced `fs` at v1 unless `fresh`) in the middle of a sync of `fs` at v2 that
   * read its examples before any were stored: that read returns once `release` is called.
   */
  async function syncHeldAfterItsExamplesRead(options: { fresh?: boolean } = {}) {
    const reader = new FakeCatalogReader();
    const registry = new ToolRegistry();
    const stored = new Map<string, string[]>();
    const enrichments = enrichmentStore(stored);
    const selectedToolIds = new Set(['fs:read_file']);
    reader.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file')]);
    if (!options.fresh) await syncMcpToolsToRegistry(registry, reader, { selectedToolIds, caller, enrichments });
    reader.setReady(makeDefinition({ id: 'fs' }), [makeCatalogTool('read_file'), makeCatalogTool('stat_file')], 'v2');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reads = enrichments.reads.length;
    const syncing = syncMcpToolsToRegistry(registry, reader, {
      selectedToolIds,
      caller,
      enrichments: {
        ...enrichments,
        read: async (digests) => {
          // Only the sync's own read waits; one it may make after applying does not.
          const read = await enrichments.read(digests);
          if (enrichments.reads.length === reads + 1) await gate;
          return read;
        },
      },
    });
    await vi.waitFor(() => expect(enrichments.reads).toHaveLength(reads + 1));
    // The warmer stores the examples it then announces.
    stored.set(toolEnrichmentDigest(makeCatalogTool('read_file')), ['open my quarterly spreadsheet']);
    return { registry, enrichments, syncing, release };
  }

  function foundByExample(registry: ToolRegistry): string[] | undefined {
    return registry.searchIndex?.search('quarterly spreadsheet').map((hit) => hit.entry.name);
  }

  it('a sync that read examples before an announcement keeps what the announced re-read indexed', async () => {
    const { registry, enrichments, syncing, release } = await syncHeldAfterItsExamplesRead();
    // The announced re-read ends before the sync applies its older read.
    expect(await refreshServerExamples(registry, enrichments, 'fs')).toEqual({ tools: 1, withExamples: 1 });
    release();
    await syncing;
    expect(names(registry)).toEqual(['mcp__fs__readFile', 'mcp__fs__statFile']);
    expect(foundByExample(registry)).toEqual(['mcp__fs__readFile']);
  });

  it('a sync that read examples before an announcement reads them again when the re-read left the server to it', async () => {
    const { registry, enrichments, syncing, release } = await syncHeldAfterItsExamplesRead();
    let releaseRefresh: () => void = () => {};
    const refreshGate = new Promise<void>((resolve) => (releaseRefresh = resolve));
    // The announced re-read is under way when the sync applies its older read.
    const refreshing = refreshServerExamples(
      registry,
      { ...enrichments, read: async (digests) => refreshGate.then(() => enrichments.read(digests)) },
      'fs',
    );
    release();
    await syncing;
    releaseRefresh();
    expect(await refreshing).toEqual({ tools: 1, withExamples: 0, skipped: 'replaced' });
    expect(foundByExample(registry)).toEqual(['mcp__fs__readFile']);
  });

  it('a first sync of a server reads its examples again after an announcement the registry could not take up yet', async () => {
    const { registry, enrichments, syncing, release } = await syncHeldAfterItsExamplesRead({ fresh: true });
    expect(await refreshServerExamples(registry, enrichments, 'fs')).toEqual({
      tools: 0,
      withExamples: 0,
      skipped: 'not-held',
    });
    release();
    await syncing;
    expect(foundByExample(registry)).toEqual(['mcp__fs__readFile']);
  });
});
