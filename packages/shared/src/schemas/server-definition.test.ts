import { describe, expect, it } from 'vitest';
import { isAlwaysAsk, serverDefinitionSchema, serverDisplayName, serverIdSchema } from './server-definition.js';

function issuesOf(value: unknown) {
  const parsed = serverDefinitionSchema.safeParse(value);
  if (parsed.success) throw new Error('expected the definition to be rejected');
  return parsed.error.issues;
}

describe('serverIdSchema', () => {
  it('accepts slugs up to 63 characters', () => {
    for (const id of ['github', 'my-server_2', '0day', 'a'.repeat(63)])
      expect(serverIdSchema.safeParse(id).success).toBe(true);
  });

  it('rejects anything that is not a slug', () => {
    for (const id of ['GitHub', 'has space', '-leading', '_leading', 'dot.ted', 'co:lon', '', 'a'.repeat(64), 'ünï']) {
      expect(serverIdSchema.safeParse(id).success, id).toBe(false);
    }
  });
});

describe('serverDefinitionSchema', () => {
  it('fills the defaults of a stdio server', () => {
    expect(
      serverDefinitionSchema.parse({
        id: 'everything',
        transport: { type: 'stdio', command: 'mcp-server-everything' },
      }),
    ).toEqual({
      id: 'everything',
      transport: { type: 'stdio', command: 'mcp-server-everything', args: [], env: {} },
      enabled: true,
      alwaysAsk: [],
      disabledTools: [],
      timeouts: { connectMs: 10_000, listMs: 15_000, callMs: 60_000 },
    });
  });

  it('accepts every transport with its fields', () => {
    const stdio = serverDefinitionSchema.parse({
      id: 'fs',
      transport: { type: 'stdio', command: 'node', args: ['server.js'], env: { TOKEN: '${FS_TOKEN}' }, cwd: '/srv' },
    });
    expect(stdio.transport).toEqual({
      type: 'stdio',
      command: 'node',
      args: ['server.js'],
      env: { TOKEN: '${FS_TOKEN}' },
      cwd: '/srv',
    });
    for (const type of ['streamable-http', 'sse'] as const) {
      const http = serverDefinitionSchema.parse({
        id: 'remote',
        transport: { type, url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } },
      });
      expect(http.transport).toEqual({
        type,
        url: 'https://mcp.example.com/mcp',
        headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' },
      });
    }
  });

  it('rejects an unknown transport type, a non-http URL and fields of another transport', () => {
    expect(issuesOf({ id: 'x', transport: { type: 'websocket', url: 'ws://x' } })[0]!.path).toEqual([
      'transport',
      'type',
    ]);
    expect(issuesOf({ id: 'x', transport: { type: 'sse', url: 'ftp://x' } })[0]!.path).toEqual(['transport', 'url']);
    const mixed = issuesOf({ id: 'x', transport: { type: 'stdio', command: 'node', url: 'http://x' } })[0]!;
    expect(mixed.code).toBe('unrecognized_keys');
    expect(mixed.path).toEqual(['transport']);
    expect(issuesOf({ id: 'x', transport: { type: 'stdio', command: '' } })[0]!.path).toEqual(['transport', 'command']);
  });

  it('rejects unknown top-level fields, so a typo cannot silently drop a setting', () => {
    const issue = issuesOf({ id: 'x', transport: { type: 'stdio', command: 'node' }, alwaysask: ['*'] })[0]!;
    expect(issue.code).toBe('unrecognized_keys');
    expect(issue.message).toContain('alwaysask');
  });

  it('rejects a non-slug id and names the field', () => {
    expect(issuesOf({ id: 'My Server', transport: { type: 'stdio', command: 'node' } })[0]!.path).toEqual(['id']);
  });

  it('keeps approval lists, disabled tools, partial timeouts and a poll interval', () => {
    const definition = serverDefinitionSchema.parse({
      id: 'github',
      name: 'GitHub',
      transport: { type: 'streamable-http', url: 'http://127.0.0.1:9000/mcp' },
      enabled: false,
      alwaysAsk: ['delete_repo'],
      disabledTools: ['admin'],
      timeouts: { callMs: 5_000 },
      refreshIntervalMs: 60_000,
    });
    expect(definition).toMatchObject({
      enabled: false,
      alwaysAsk: ['delete_repo'],
      disabledTools: ['admin'],
      timeouts: { connectMs: 10_000, listMs: 15_000, callMs: 5_000 },
      refreshIntervalMs: 60_000,
    });
    expect(serverDisplayName(definition)).toBe('GitHub');
    expect(serverDisplayName({ id: 'github', name: undefined })).toBe('github');
  });

  it('rejects a poll interval below 10 seconds and non-positive timeouts', () => {
    const base = { id: 'x', transport: { type: 'stdio', command: 'node' } };
    expect(issuesOf({ ...base, refreshIntervalMs: 500 })[0]!.path).toEqual(['refreshIntervalMs']);
    expect(issuesOf({ ...base, timeouts: { listMs: 0 } })[0]!.path).toEqual(['timeouts', 'listMs']);
    expect(issuesOf({ ...base, alwaysAsk: [''] })[0]!.path).toEqual(['alwaysAsk', 0]);
  });
});

describe('isAlwaysAsk', () => {
  it("matches listed tool names, and every tool for '*'", () => {
    expect(isAlwaysAsk({ alwaysAsk: ['delete_repo'] }, 'delete_repo')).toBe(true);
    expect(isAlwaysAsk({ alwaysAsk: ['delete_repo'] }, 'list_repos')).toBe(false);
    expect(isAlwaysAsk({ alwaysAsk: ['*'] }, 'anything')).toBe(true);
    expect(isAlwaysAsk({ alwaysAsk: [] }, 'anything')).toBe(false);
  });
});
