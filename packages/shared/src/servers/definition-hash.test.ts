import { describe, expect, it } from 'vitest';
import { serverDefinitionSchema, type ServerDefinition } from '../schemas/server-definition.js';
import { definitionHash } from './definition-hash.js';

const base = serverDefinitionSchema.parse({
  id: 'fs',
  transport: { type: 'stdio', command: 'node', args: ['a.js'], env: { A: '1', B: '${SECRET}' } },
});

function withTransport(transport: ServerDefinition['transport']): ServerDefinition {
  return { ...base, transport };
}

describe('definitionHash', () => {
  it('is stable whatever the key order, at every depth', () => {
    const reordered: ServerDefinition = {
      timeouts: base.timeouts,
      transport: { env: { B: '${SECRET}', A: '1' }, args: ['a.js'], command: 'node', type: 'stdio' },
      disabledTools: [],
      alwaysAsk: [],
      enabled: true,
      id: 'fs',
    };
    expect(definitionHash(reordered)).toBe(definitionHash(base));
  });

  it('changes with any part of the transport and with the id', () => {
    const hashes = new Set([
      definitionHash(base),
      definitionHash({ ...base, id: 'fs2' }),
      definitionHash(
        withTransport({ type: 'stdio', command: 'node', args: ['b.js'], env: { A: '1', B: '${SECRET}' } }),
      ),
      definitionHash(
        withTransport({ type: 'stdio', command: 'node', args: ['a.js'], env: { A: '2', B: '${SECRET}' } }),
      ),
      definitionHash(withTransport({ type: 'stdio', command: 'node', args: ['a.js'], env: { A: '1', B: '${OTHER}' } })),
      definitionHash(
        withTransport({ type: 'stdio', command: 'node', args: ['a.js'], env: { A: '1', B: '${SECRET}' }, cwd: '/x' }),
      ),
      definitionHash(withTransport({ type: 'streamable-http', url: 'http://h/mcp', headers: {} })),
      definitionHash(withTransport({ type: 'sse', url: 'http://h/mcp', headers: {} })),
      definitionHash(withTransport({ type: 'sse', url: 'http://h/mcp', headers: { Authorization: 'x' } })),
    ]);
    expect(hashes.size).toBe(9);
  });

  it('ignores settings that do not change which tools the server offers', () => {
    const adjusted: ServerDefinition = {
      ...base,
      name: 'Files',
      enabled: false,
      alwaysAsk: ['*'],
      disabledTools: ['write'],
      timeouts: { connectMs: 1, listMs: 1, callMs: 1 },
      refreshIntervalMs: 60_000,
    };
    expect(definitionHash(adjusted)).toBe(definitionHash(base));
  });
});
