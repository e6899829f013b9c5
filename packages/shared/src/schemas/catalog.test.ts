import { describe, expect, it } from 'vitest';
import { catalogEntrySchema, catalogStatusSchema, catalogUpdatedEventSchema } from './catalog.js';

const tool = {
  name: 'echo',
  description: 'Echoes',
  inputSchema: {
    type: 'object',
    properties: { message: { type: 'string' } },
    required: ['message'],
    additionalProperties: false,
  },
};
const entry = { tools: [tool], definitionHash: 'h1', refreshedAt: 10, state: 'connected', version: 'v1' };

describe('catalogEntrySchema', () => {
  it('accepts an entry, and an empty tool list meaning warmed and empty', () => {
    expect(catalogEntrySchema.parse(entry)).toEqual(entry);
    expect(catalogEntrySchema.parse({ ...entry, tools: [] }).tools).toEqual([]);
  });

  it('rejects a tool whose input schema is not an object schema, naming the field', () => {
    const parsed = catalogEntrySchema.safeParse({ ...entry, tools: [{ ...tool, inputSchema: { type: 'string' } }] });
    expect(parsed.error?.issues[0]?.path).toEqual(['tools', 0, 'inputSchema', 'type']);
  });

  it('rejects unknown states, and drops unknown fields (lenient on read)', () => {
    expect(catalogEntrySchema.safeParse({ ...entry, state: 'warm' }).error?.issues[0]?.path).toEqual(['state']);
    expect(catalogEntrySchema.parse({ ...entry, stale: true })).not.toHaveProperty('stale');
  });
});

describe('catalogStatusSchema', () => {
  it('accepts every state and defaults the failure count', () => {
    for (const state of ['connected', 'stale', 'error', 'disabled']) {
      expect(catalogStatusSchema.parse({ state, lastAttemptAt: 1, toolCount: 0 })).toEqual({
        state,
        lastAttemptAt: 1,
        toolCount: 0,
        failures: 0,
      });
    }
  });

  it('reads a status a newer warmer wrote: unknown fields are dropped, known ones still checked', () => {
    const newer = {
      state: 'error',
      lastAttemptAt: 1,
      toolCount: 0,
      errorCode: 'MCP_CONNECT_TIMEOUT',
      futureField: { nested: true },
      readBy: { warmerId: 'w1', session: 'fresh', futureSession: 'x' },
      skippedTools: [{ name: 'a', reason: 'too deep', futureDetail: 1 }],
    };
    expect(catalogStatusSchema.parse(newer)).toEqual({
      state: 'error',
      lastAttemptAt: 1,
      toolCount: 0,
      failures: 0,
      errorCode: 'MCP_CONNECT_TIMEOUT',
      readBy: { warmerId: 'w1', session: 'fresh' },
      skippedTools: [{ name: 'a', reason: 'too deep' }],
    });
    expect(catalogStatusSchema.safeParse({ ...newer, toolCount: 'many' }).error?.issues[0]?.path).toEqual([
      'toolCount',
    ]);
    expect(
      catalogEntrySchema.parse({ ...entry, readBy: { warmerId: 'w1', session: 'watcher', extra: 1 } }).readBy,
    ).toEqual({ warmerId: 'w1', session: 'watcher' });
  });

  it('rejects a negative tool count and an unknown state', () => {
    expect(
      catalogStatusSchema.safeParse({ state: 'error', lastAttemptAt: 1, toolCount: -1 }).error?.issues[0]?.path,
    ).toEqual(['toolCount']);
    expect(
      catalogStatusSchema.safeParse({ state: 'down', lastAttemptAt: 1, toolCount: 0 }).error?.issues[0]?.path,
    ).toEqual(['state']);
  });
});

describe('catalogUpdatedEventSchema', () => {
  it('needs a server id and a version', () => {
    expect(catalogUpdatedEventSchema.safeParse({ serverId: 'a', version: 'v' }).success).toBe(true);
    expect(catalogUpdatedEventSchema.safeParse({ serverId: 'a' }).success).toBe(false);
    expect(catalogUpdatedEventSchema.parse({ serverId: 'a', version: 'v', origin: 'newer' })).toEqual({
      serverId: 'a',
      version: 'v',
    });
  });
});
