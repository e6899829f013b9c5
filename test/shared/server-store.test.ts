import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  AgentqError,
  definitionHash,
  keyPrefix,
  type ServerChangeEvent,
  type ServerDefinitionInput,
} from '@agentq/shared';
import { ServerStore, keyNames, parseServerChangeEvent } from '@agentq/store';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { eventually } from '../helpers/eventually.js';

const everything: ServerDefinitionInput = {
  id: 'everything',
  name: 'Everything',
  transport: { type: 'stdio', command: 'mcp-server-everything' },
};
const remote: ServerDefinitionInput = {
  id: 'remote',
  transport: {
    type: 'streamable-http',
    url: 'https://mcp.example.com/mcp',
    headers: { Authorization: 'Bearer ${AGENTQ_SECRET_TOKEN}' },
  },
  alwaysAsk: ['*'],
};

const directory = mkdtempSync(join(tmpdir(), 'agentq-store-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

let context: TestContext;
let store: ServerStore;

beforeEach(() => {
  context = createTestContext();
  store = new ServerStore({ redis: context.redis, prefix: context.prefix });
});

afterEach(async () => {
  await context.close();
});

describe('ServerStore round trip', () => {
  it('puts, gets, lists, toggles and removes definitions', async () => {
    expect(await store.list()).toEqual([]);
    expect(await store.get('everything')).toBeNull();

    const stored = await store.put(remote);
    expect(stored).toMatchObject({ id: 'remote', enabled: true, alwaysAsk: ['*'] });
    await store.put(everything);

    expect(await store.get('remote')).toEqual(stored);
    // Secrets stay as placeholders in Redis.
    expect(await context.redis.hget(keyNames(context.prefix).servers, 'remote')).toContain('${AGENTQ_SECRET_TOKEN}');
    expect((await store.list()).map((definition) => definition.id)).toEqual(['everything', 'remote']);

    const disabled = await store.setEnabled('everything', false);
    expect(disabled.enabled).toBe(false);
    expect((await store.get('everything'))?.enabled).toBe(false);
    expect((await store.setEnabled('everything', true)).enabled).toBe(true);

    const replaced = await store.put({ ...everything, name: 'Renamed' });
    expect((await store.get('everything'))?.name).toBe(replaced.name);

    expect(await store.remove('everything')).toBe(true);
    expect(await store.remove('everything')).toBe(false);
    expect(await store.get('everything')).toBeNull();
    expect((await store.list()).map((definition) => definition.id)).toEqual(['remote']);
  });

  it('moves the definitions version with every write, in the same script or transaction', async () => {
    const versionKey = keyNames(context.prefix).serversVersion;
    const version = async () => Number((await context.redis.get(versionKey)) ?? 0);
    await store.put(everything);
    expect(await version()).toBe(1);
    await store.setEnabled('everything', false);
    expect(await version()).toBe(2);
    // A write that finds nothing to change (no such server) moves nothing.
    expect(await store.remove('ghost')).toBe(false);
    expect(await version()).toBe(2);
    await store.remove('everything');
    expect(await version()).toBe(3);
    const path = file(
      'version.yaml',
      'servers:\n  memory: { transport: { type: stdio, command: mcp-server-memory } }\n',
    );
    await store.importFile(path);
    expect(await version()).toBe(4);
  });

  it('works under a hash-tagged cluster prefix, keeping its keys in that tag', async () => {
    const tagged = keyPrefix({ prefix: context.prefix, cluster: true });
    const clusterStore = new ServerStore({ redis: context.redis, prefix: tagged });
    await clusterStore.put(everything);
    expect((await clusterStore.get('everything'))?.id).toBe('everything');
    expect(await context.redis.hkeys(`{${context.prefix}}:servers`)).toEqual(['everything']);
    expect(await store.list()).toEqual([]);
  });

  it('rejects an invalid definition with VALIDATION naming the field, writing nothing', async () => {
    const error = await store
      .put({ ...everything, transport: { type: 'sse', url: 'ftp://x' } } as ServerDefinitionInput)
      .catch((caught: unknown) => caught);
    expect(AgentqError.isInstance(error) && error.code).toBe('VALIDATION');
    expect(AgentqError.isInstance(error) && error.field).toBe('transport.url');
    expect(await context.redis.exists(keyNames(context.prefix).servers)).toBe(0);
  });

  it('answers NOT_FOUND when enabling an unknown server', async () => {
    const error = await store.setEnabled('ghost', true).catch((caught: unknown) => caught);
    expect(AgentqError.isInstance(error) && error.code).toBe('NOT_FOUND');
  });
});

describe('ServerStore.importFile', () => {
  it('imports every definition of a valid file', async () => {
    const path = file(
      'ok.yaml',
      `servers:
  everything: { transport: { type: stdio, command: mcp-server-everything } }
  memory: { transport: { type: stdio, command: mcp-server-memory }, enabled: false }
`,
    );
    expect((await store.importFile(path)).map((definition) => definition.id)).toEqual(['everything', 'memory']);
    expect((await store.list()).map((definition) => [definition.id, definition.enabled])).toEqual([
      ['everything', true],
      ['memory', false],
    ]);
  });

  it('is all or nothing: one bad entry imports none and names file, server and field', async () => {
    await store.put(remote);
    const path = file(
      'bad.json',
      JSON.stringify({
        servers: [
          { id: 'good', transport: { type: 'stdio', command: 'node' } },
          { id: 'broken', transport: { type: 'stdio' } },
        ],
      }),
    );
    const error = await store.importFile(path).catch((caught: unknown) => caught);
    expect(AgentqError.isInstance(error) && error.code).toBe('IMPORT_INVALID');
    expect(AgentqError.isInstance(error) && error.field).toBe('servers.broken.transport.command');
    expect((error as Error).message).toContain(path);
    expect(await context.redis.hkeys(keyNames(context.prefix).servers)).toEqual(['remote']);
  });
});

describe('ServerStore change events', () => {
  let subscriber: Redis | undefined;

  afterEach(() => {
    subscriber?.disconnect();
  });

  it('publishes an event for every change on the servers.changed channel', async () => {
    const events: ServerChangeEvent[] = [];
    subscriber = new Redis(context.redisUrl);
    const channel = keyNames(context.prefix).serversChanged;
    subscriber.on('message', (received: string, message: string) => {
      if (received !== channel) return;
      const event = parseServerChangeEvent(message);
      if (event) events.push(event);
    });
    await subscriber.subscribe(channel);

    const first = await store.put(everything);
    const firstHash = definitionHash(first);
    const second = await store.put({ ...everything, transport: { type: 'stdio', command: 'other' } });
    await store.setEnabled('everything', false);
    await store.setEnabled('everything', true);
    await store.remove('everything');
    await store.remove('everything'); // nothing to remove: no event
    await store.importFile(
      file('events.yaml', 'servers:\n  - id: memory\n    transport: { type: stdio, command: m }\n'),
    );

    await eventually(() => events.length >= 6, 'six change events');
    expect(events).toEqual([
      { type: 'put', serverId: 'everything', definitionHash: firstHash },
      { type: 'put', serverId: 'everything', definitionHash: definitionHash(second), previousHash: firstHash },
      {
        type: 'disabled',
        serverId: 'everything',
        definitionHash: definitionHash(second),
        previousHash: definitionHash(second),
      },
      {
        type: 'enabled',
        serverId: 'everything',
        definitionHash: definitionHash(second),
        previousHash: definitionHash(second),
      },
      { type: 'remove', serverId: 'everything' },
      { type: 'put', serverId: 'memory', definitionHash: expect.any(String) },
    ]);
    // Settle briefly so an unexpected seventh event would show up.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(events).toHaveLength(6);
  });
});

describe('ServerStore concurrent puts', () => {
  it('chains previousHash through every write, even when puts race', async () => {
    const events: ServerChangeEvent[] = [];
    const subscriber = new Redis(context.redisUrl);
    try {
      const channel = keyNames(context.prefix).serversChanged;
      subscriber.on('message', (received: string, message: string) => {
        const event = received === channel ? parseServerChangeEvent(message) : null;
        if (event?.serverId === 'racer') events.push(event);
      });
      await subscriber.subscribe(channel);
      const writes = Array.from({ length: 12 }, (_, index) => ({
        id: 'racer',
        transport: { type: 'stdio' as const, command: `cmd-${index}` },
      }));
      await Promise.all(writes.map((write) => store.put(write)));
      await eventually(() => events.length >= writes.length, 'one event per put');
      // Replaying the events in order must walk from "new" through each written hash exactly once.
      let current: string | undefined;
      for (const event of events) {
        expect(event.previousHash).toBe(current);
        current = event.definitionHash;
      }
      expect(definitionHash((await store.get('racer'))!)).toBe(current);
    } finally {
      subscriber.disconnect();
      await store.remove('racer');
    }
  });
});

describe('ServerStore with corrupt stored values', () => {
  it('reports and skips corrupt entries in list and get, and never crashes', async () => {
    await store.put(everything);
    const servers = keyNames(context.prefix).servers;
    await context.redis.hset(servers, {
      'not-json': '{"id": "not-json", ',
      'bad-field': JSON.stringify({ id: 'bad-field', transport: { type: 'stdio' } }),
      'wrong-id': JSON.stringify({ ...everything, id: 'someone-else' }),
    });

    expect((await store.list()).map((definition) => definition.id)).toEqual(['everything']);
    const { servers: valid, corrupt } = await store.listWithErrors();
    expect(valid).toHaveLength(1);
    const codes = Object.fromEntries(corrupt.map((entry) => [entry.serverId, [entry.error.code, entry.error.field]]));
    expect(codes).toEqual({
      'not-json': ['INVALID_JSON', ''],
      'bad-field': ['VALIDATION', 'transport.command'],
      'wrong-id': ['VALIDATION', 'id'],
    });

    for (const id of ['not-json', 'bad-field', 'wrong-id']) expect(await store.get(id)).toBeNull();
    expect(await store.get('everything')).not.toBeNull();

    const error = await store.setEnabled('bad-field', false).catch((caught: unknown) => caught);
    expect(AgentqError.isInstance(error) && error.code).toBe('NOT_FOUND');
    // A corrupt entry can be repaired by writing a valid definition over it.
    await store.put({ id: 'bad-field', transport: { type: 'stdio', command: 'fixed' } });
    expect((await store.get('bad-field'))?.transport).toMatchObject({ command: 'fixed' });
  });
});
