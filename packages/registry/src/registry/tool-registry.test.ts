import { describe, expect, it } from 'vitest';
import type { Logger } from '@agentq/shared';
import { makeEntry } from '../test-support/fixtures.js';
import { registry as processRegistry, ToolRegistry } from './tool-registry.js';

function recordingLogger(): { logger: Logger; warnings: unknown[] } {
  const warnings: unknown[] = [];
  const logger: Logger = {
    trace: () => {},
    debug: () => {},
    info: () => {},
    warn: (context: unknown) => void warnings.push(context),
    error: () => {},
    child: () => logger,
  };
  return { logger, warnings };
}

describe('ToolRegistry', () => {
  it('upserts by name: the last write wins and the count stays the same', () => {
    const registry = new ToolRegistry();
    registry.register(makeEntry('a', { description: 'first' }));
    registry.register(makeEntry('a', { description: 'second' }));
    expect(registry.size).toBe(1);
    expect(registry.getByName('a')?.description).toBe('second');
  });

  it('deregister reports whether the name existed', () => {
    const registry = new ToolRegistry();
    registry.register(makeEntry('a'));
    expect(registry.deregister('a')).toBe(true);
    expect(registry.deregister('a')).toBe(false);
    expect(registry.getByName('a')).toBeUndefined();
  });

  it('getAll sorts by name whatever the registration order', () => {
    const registry = new ToolRegistry();
    for (const name of ['c', 'a', 'b']) registry.register(makeEntry(name));
    expect(registry.getAll().map((entry) => entry.name)).toEqual(['a', 'b', 'c']);
  });

  it('getAll filters by raw namespace or by label', () => {
    const registry = new ToolRegistry();
    registry.register(makeEntry('x', { namespace: 'mcp:gh', label: 'mcp:GitHub' }));
    registry.register(makeEntry('y', { namespace: 'web' }));
    expect(registry.getAll({ namespace: 'mcp:gh' }).map((entry) => entry.name)).toEqual(['x']);
    expect(registry.getAll({ namespace: 'mcp:GitHub' }).map((entry) => entry.name)).toEqual(['x']);
    expect(registry.getAll({ namespace: 'web' }).map((entry) => entry.name)).toEqual(['y']);
    expect(registry.getAll({ namespace: 'nope' })).toEqual([]);
  });

  it('getAll query is a case-insensitive substring of name, blurb or label', () => {
    const registry = new ToolRegistry();
    registry.register(
      makeEntry('create_issue', { description: 'Opens a ticket', namespace: 'mcp:gl', label: 'mcp:GitLab' }),
    );
    registry.register(makeEntry('web_fetch', { description: 'Fetches a URL', namespace: 'web' }));
    expect(registry.getAll({ query: 'ISSUE' }).map((entry) => entry.name)).toEqual(['create_issue']);
    expect(registry.getAll({ query: 'ticket' }).map((entry) => entry.name)).toEqual(['create_issue']);
    expect(registry.getAll({ query: 'gitlab' }).map((entry) => entry.name)).toEqual(['create_issue']);
    expect(registry.getAll({ query: 'url' }).map((entry) => entry.name)).toEqual(['web_fetch']);
  });

  it('selectActive keeps entries that apply, sorted by name', () => {
    const registry = new ToolRegistry();
    registry.register(makeEntry('z-always'));
    registry.register(makeEntry('b-selected', { applies: (scope) => scope.mcpToolIds.has('s:b') }));
    registry.register(makeEntry('a-not', { applies: (scope) => scope.mcpToolIds.has('s:a') }));
    const active = registry.selectActive({ mcpToolIds: new Set(['s:b']) });
    expect(active.map((entry) => entry.name)).toEqual(['b-selected', 'z-always']);
  });

  it('selectActive finds MCP entries by the scope tool ids, through re-registration and removal', () => {
    const registry = new ToolRegistry();
    const mcpEntry = (name: string, toolId: string) => ({
      ...makeEntry(name, { applies: (scope) => scope.mcpToolIds.has(toolId) }),
      mcp: { serverId: 's', toolName: toolId.slice(2), toolId, schemaDigest: 'd' },
    });
    registry.register(makeEntry('always'));
    registry.register(mcpEntry('s_a', 's:a'));
    registry.register(mcpEntry('s_b', 's:b'));
    const names = (ids: string[]) => registry.selectActive({ mcpToolIds: new Set(ids) }).map((entry) => entry.name);
    expect(names(['s:b', 's:a', 's:gone'])).toEqual(['always', 's_a', 's_b']);
    expect(names([])).toEqual(['always']);
    // The name s_a now means another tool: the old id selects nothing, the new one selects it.
    registry.register(mcpEntry('s_a', 's:c'));
    expect(names(['s:a'])).toEqual(['always']);
    expect(names(['s:c'])).toEqual(['always', 's_a']);
    registry.deregister('s_b');
    registry.deregister('always');
    expect(names(['s:b', 's:c'])).toEqual(['s_a']);
  });

  it('selectActive and getAll stay sorted by name through any mix of writes and reads', () => {
    const registry = new ToolRegistry({ indexed: false });
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const names = Array.from({ length: 60 }, (_, index) => `${'abcXyz_-09'[index % 10]}${(index * 37) % 101}`);
    const live = new Map<string, string>();
    const mcpEntry = (name: string, toolId: string) => ({
      ...makeEntry(name, { applies: (scope) => scope.mcpToolIds.has(toolId) }),
      mcp: { serverId: 's', toolName: toolId.slice(2), toolId, schemaDigest: 'd' },
    });
    for (let step = 0; step < 2_000; step += 1) {
      const name = names[Math.floor(random() * names.length)] as string;
      const roll = random();
      if (roll < 0.5) {
        const toolId = `s:${Math.floor(random() * 80)}`;
        registry.register(mcpEntry(name, toolId));
        live.set(name, toolId);
      } else if (roll < 0.7) {
        expect(registry.deregister(name)).toBe(live.delete(name));
      } else {
        const ids = new Set([...live.values()].filter(() => random() < 0.6));
        const expected = [...live].filter(([, toolId]) => ids.has(toolId)).map(([each]) => each);
        expect(registry.selectActive({ mcpToolIds: ids }).map((entry) => entry.name)).toEqual(
          expected.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        );
        expect(registry.getAll().map((entry) => entry.name)).toEqual(
          [...live.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
        );
      }
    }
  });

  it('treats an entry whose applies throws as inactive and logs a warning', () => {
    const { logger, warnings } = recordingLogger();
    const registry = new ToolRegistry({ logger });
    registry.register(
      makeEntry('broken', {
        applies: () => {
          throw new Error('boom');
        },
      }),
    );
    registry.register(makeEntry('fine'));
    expect(registry.selectActive({ mcpToolIds: new Set() }).map((entry) => entry.name)).toEqual(['fine']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ tool: 'broken' });
  });

  it('registries built in tests never share state with the process-wide one', () => {
    const mine = new ToolRegistry();
    mine.register(makeEntry('only-mine'));
    expect(processRegistry.getByName('only-mine')).toBeUndefined();
    expect(processRegistry).toBeInstanceOf(ToolRegistry);
  });
});

describe('ToolRegistry search index', () => {
  it('follows register and deregister document by document', () => {
    const registry = new ToolRegistry();
    registry.register(makeEntry('alpha_tool', { description: 'Alpha widgets' }));
    registry.register(makeEntry('beta_tool', { description: 'Beta gadgets' }));
    const index = registry.searchIndex;
    expect(index?.search('widgets').map((hit) => hit.entry.name)).toEqual(['alpha_tool']);
    registry.register(makeEntry('alpha_tool', { description: 'Alpha sprockets' }));
    expect(index?.search('widgets')).toEqual([]);
    expect(index?.search('sprockets').map((hit) => hit.entry.name)).toEqual(['alpha_tool']);
    expect(registry.deregister('beta_tool')).toBe(true);
    expect(index?.search('gadgets')).toEqual([]);
    expect(index?.stats).toEqual({ documents: 1, documentWrites: 3, documentRemovals: 1 });
  });

  it('keeps no index when told not to (a per-run view)', () => {
    const view = new ToolRegistry({ indexed: false });
    view.register(makeEntry('alpha_tool'));
    expect(view.searchIndex).toBeUndefined();
  });
});
