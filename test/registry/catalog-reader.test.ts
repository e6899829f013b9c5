import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { catalogEntrySchema, catalogStatusSchema, definitionHash, safeParseJson, type Logger } from '@agentq/shared';
import { catalogEntryDigest, keyNames, ServerStore } from '@agentq/store';
import { createCatalogReader, type CatalogRead } from '@agentq/registry';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalog, catalogVersionOf } from '../fixtures/tool-pools/write-catalog.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

function recordingLogger() {
  const warnings: Array<Record<string, unknown>> = [];
  const logger: Logger = {
    trace: () => {},
    debug: () => {},
    info: () => {},
    warn: (context: unknown) =>
      void warnings.push(typeof context === 'object' ? (context as Record<string, unknown>) : { message: context }),
    error: () => {},
    child: () => logger,
  };
  return { logger, warnings };
}

const tool = (name: string) => ({
  name,
  description: `Does ${name}.`,
  inputSchema: { type: 'object' as const, properties: {} },
});
// If anything ever tried to start this server, the marker file would appear.
const marker = join(tmpdir(), `agentq-never-started-${randomUUID()}`);
const neverStarted = { type: 'stdio' as const, command: 'sh', args: ['-c', `touch ${marker}`] };

let ctx: TestContext;
let keys: ReturnType<typeof keyNames>;

beforeAll(async () => {
  ctx = createTestContext();
  keys = keyNames(ctx.prefix);
  await writeCatalog(ctx.redis, ctx.prefix, [
    { definition: { id: 'ready', name: 'Ready Server', transport: neverStarted }, tools: [tool('a'), tool('b')] },
    { definition: { id: 'empty', transport: neverStarted }, tools: [] },
  ]);
  const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
  await store.put({ id: 'never-warmed', transport: neverStarted });
  await store.put({ id: 'off', transport: neverStarted, enabled: false });
});

afterAll(async () => {
  await ctx.close();
});

describe('catalog reader (real Redis)', () => {
  it('tells ready, empty and cold apart, with version, status and age', async () => {
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, now: () => Date.now() + 1_000 });
    const reads = await reader.readMany(['ready', 'empty', 'never-warmed']);
    const ready = reads.get('ready') as CatalogRead;
    expect(ready.state).toBe('ready');
    expect(ready.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(ready.version).toBe(catalogVersionOf([tool('a'), tool('b')]));
    expect(ready.status?.state).toBe('connected');
    expect(ready.ageMs).toBeGreaterThanOrEqual(1_000);
    expect(ready.definition?.name).toBe('Ready Server');
    expect(reads.get('empty')).toMatchObject({ state: 'empty', tools: [] });
    expect(reads.get('never-warmed')).toMatchObject({ state: 'cold', coldReason: 'missing', tools: [] });
  });

  it('keeps reading the other servers when the keys of one cannot be read', async () => {
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.put({ id: 'wrong-type', transport: neverStarted });
    // A hand-made key of the wrong type makes its GET fail inside the pipeline.
    await ctx.redis.rpush(keys.tools('wrong-type'), 'not', 'a', 'string');
    const { logger, warnings } = recordingLogger();
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, logger });
    const reads = await reader.readMany(['wrong-type', 'ready']);
    expect(reads.get('wrong-type')).toMatchObject({ state: 'cold', coldReason: 'corrupt' });
    expect(reads.get('ready')?.state).toBe('ready');
    expect(warnings.some((warning) => warning.serverId === 'wrong-type')).toBe(true);
  });

  it('still reports a status or version key of the wrong type once the entry is known', async () => {
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'typed-status', transport: neverStarted }, tools: [tool('s')] },
      { definition: { id: 'typed-version', transport: neverStarted }, tools: [tool('v')] },
      { definition: { id: 'no-status', transport: neverStarted }, tools: [tool('n')] },
    ]);
    await ctx.redis.del(keys.status('no-status'));
    const { logger, warnings } = recordingLogger();
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, logger });
    const ids = ['typed-status', 'typed-version', 'no-status'];
    const first = await reader.readMany(ids);
    expect(ids.map((id) => first.get(id)?.state)).toEqual(['ready', 'ready', 'ready']);
    // Now the reader holds every entry and asks for version keys and statuses only. MGET answers
    // nil for a key of the wrong type where GET fails: the reader must not take that for "missing".
    await ctx.redis.del(keys.status('typed-status'));
    await ctx.redis.rpush(keys.status('typed-status'), 'not', 'a', 'string');
    await ctx.redis.del(keys.catalogVersion('typed-version'));
    await ctx.redis.sadd(keys.catalogVersion('typed-version'), 'not-a-string');
    await ctx.redis.rpush(keys.status('no-status'), 'not', 'a', 'string');
    const second = await reader.readMany(ids);
    expect(second.get('typed-status')).toMatchObject({ state: 'cold', coldReason: 'corrupt' });
    expect(second.get('no-status')).toMatchObject({ state: 'cold', coldReason: 'corrupt' });
    // An unreadable version key only means the entry is read again, as before.
    expect(second.get('typed-version')).toMatchObject({ state: 'ready', tools: [{ name: 'v' }] });
    expect(warnings.filter((warning) => warning.serverId === 'typed-status')).toHaveLength(1);
    expect(warnings.filter((warning) => warning.serverId === 'no-status')).toHaveLength(1);
  });

  it('reports unknown and disabled servers as cold with their reason', async () => {
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix });
    expect(await reader.listTools('ghost')).toMatchObject({
      state: 'cold',
      coldReason: 'unknown-server',
      definition: null,
    });
    expect(await reader.listTools('off')).toMatchObject({ state: 'cold', coldReason: 'disabled' });
  });

  it('treats an entry read from another definition as cold (hash mismatch)', async () => {
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'moved', transport: neverStarted }, tools: [tool('old')] },
    ]);
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix });
    expect((await reader.listTools('moved')).state).toBe('ready');
    const changed = await store.put({
      id: 'moved',
      transport: { ...neverStarted, args: ['-c', `touch ${marker}-v2`] },
    });
    const read = await reader.listTools('moved');
    expect(read).toMatchObject({ state: 'cold', coldReason: 'definition-changed', tools: [] });
    expect(definitionHash(read.definition ?? changed)).toBe(definitionHash(changed));
  });

  it('reports corrupt entries, treats them as cold and never throws', async () => {
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.put({ id: 'bad-json', transport: neverStarted });
    await store.put({ id: 'bad-shape', transport: neverStarted });
    await ctx.redis.set(keys.tools('bad-json'), '{not json');
    await ctx.redis.set(keys.tools('bad-shape'), JSON.stringify({ tools: 'nope', definitionHash: 1 }));
    const { logger, warnings } = recordingLogger();
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, logger });
    const reads = await reader.readMany(['bad-json', 'bad-shape', 'ready']);
    expect(reads.get('bad-json')).toMatchObject({ state: 'cold', coldReason: 'corrupt' });
    expect(reads.get('bad-shape')).toMatchObject({ state: 'cold', coldReason: 'corrupt' });
    expect(reads.get('ready')?.state).toBe('ready');
    expect(warnings.map((warning) => warning.serverId).sort()).toEqual(['bad-json', 'bad-shape']);
  });

  it('ignores an entry over its budget (bytes or tools), whoever wrote it, as cold over-budget', async () => {
    const { logger, warnings } = recordingLogger();
    const tight = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, logger, budget: { maxTools: 1 } });
    expect(await tight.listTools('ready')).toMatchObject({ state: 'cold', coldReason: 'over-budget', tools: [] });
    const small = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, budget: { maxEntryBytes: 50 } });
    expect(await small.listTools('ready')).toMatchObject({ state: 'cold', coldReason: 'over-budget' });
    expect(warnings.some((warning) => warning.serverId === 'ready')).toBe(true);
    const roomy = createCatalogReader({
      redis: ctx.redis,
      prefix: ctx.prefix,
      budget: { maxTools: 2, maxEntryBytes: 100_000 },
    });
    expect((await roomy.listTools('ready')).state).toBe('ready');
  });

  it('ignores a corrupt status but keeps the tools', async () => {
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'odd-status', transport: neverStarted }, tools: [tool('x')] },
    ]);
    await ctx.redis.set(keys.status('odd-status'), '{"state":"sideways"}');
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix });
    const read = await reader.listTools('odd-status');
    expect(read.state).toBe('ready');
    expect(read.status).toBeUndefined();
  });

  it('returns a stale status with the last known good list', async () => {
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'stale', transport: neverStarted }, tools: [tool('kept')] },
    ]);
    const status = catalogStatusSchema.parse({
      state: 'stale',
      error: 'connect timeout',
      lastAttemptAt: Date.now(),
      toolCount: 1,
      failures: 2,
    });
    await ctx.redis.set(keys.status('stale'), JSON.stringify(status));
    const read = await createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix }).listTools('stale');
    expect(read).toMatchObject({ state: 'ready', status: { state: 'stale', error: 'connect timeout' } });
    expect(read.tools.map((t) => t.name)).toEqual(['kept']);
  });

  it('fires onColdServer once per reader per server and definition, across many concurrent reads', async () => {
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.put({ id: 'cold-many', transport: neverStarted });
    const calls: Array<{ reader: number; serverId: string }> = [];
    const readers = Array.from({ length: 4 }, (_, index) =>
      createCatalogReader({
        redis: ctx.redis,
        prefix: ctx.prefix,
        onColdServer: (serverId) => void calls.push({ reader: index, serverId }),
      }),
    );
    await Promise.all(
      readers.flatMap((reader) => Array.from({ length: 25 }, () => reader.readMany(['cold-many', 'ready', 'empty']))),
    );
    expect(calls.sort((a, b) => a.reader - b.reader)).toEqual(
      readers.map((_, index) => ({ reader: index, serverId: 'cold-many' })),
    );
    // A new definition is a new reason to warm up.
    await store.put({ id: 'cold-many', transport: { ...neverStarted, args: ['-c', 'true'] } });
    await readers[0]?.listTools('cold-many');
    await readers[0]?.listTools('cold-many');
    expect(calls.filter((call) => call.reader === 0)).toHaveLength(2);
  });

  it('asks again, at most once per interval, while an entry stays corrupt or a server stays cold', async () => {
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'broken-later', transport: neverStarted }, tools: [tool('t')] },
    ]);
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.put({ id: 'cold-again', transport: neverStarted });
    let clock = 1_000_000;
    const calls: Array<{ serverId: string; coldReason: string | undefined }> = [];
    const reader = createCatalogReader({
      redis: ctx.redis,
      prefix: ctx.prefix,
      now: () => clock,
      coldRequestIntervalMs: 60_000,
      onColdServer: (serverId, read) => void calls.push({ serverId, coldReason: read.coldReason }),
    });
    const ids = ['broken-later', 'cold-again'];
    expect((await reader.listTools('broken-later')).state).toBe('ready');
    // Warmed, then damaged as in the field: an entry that is not one, under a moved version key.
    await ctx.redis.set(keys.tools('broken-later'), '{"tools":"nope"}');
    await ctx.redis.set(keys.catalogVersion('broken-later'), 'v9');
    await reader.readMany(ids);
    expect(calls).toEqual([
      { serverId: 'broken-later', coldReason: 'corrupt' },
      { serverId: 'cold-again', coldReason: 'missing' },
    ]);
    clock += 59_999;
    await reader.readMany(ids);
    expect(calls).toHaveLength(2);
    clock += 1;
    await reader.readMany(ids);
    await reader.readMany(ids);
    expect(calls.slice(2)).toEqual([
      { serverId: 'broken-later', coldReason: 'corrupt' },
      { serverId: 'cold-again', coldReason: 'missing' },
    ]);
    // Once listed, nothing more is asked.
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'broken-later', transport: neverStarted }, tools: [tool('t')] },
    ]);
    clock += 60_000;
    expect((await reader.readMany(ids)).get('broken-later')?.state).toBe('ready');
    expect(calls.slice(4)).toEqual([{ serverId: 'cold-again', coldReason: 'missing' }]);
    // An entry over budget is asked for once per definition: a refresh would write the same list.
    const overBudget: string[] = [];
    const tight = createCatalogReader({
      redis: ctx.redis,
      prefix: ctx.prefix,
      budget: { maxTools: 0 },
      now: () => clock,
      coldRequestIntervalMs: 60_000,
      onColdServer: (serverId) => void overBudget.push(serverId),
    });
    expect(await tight.listTools('broken-later')).toMatchObject({ state: 'cold', coldReason: 'over-budget' });
    clock += 3_600_000;
    await tight.listTools('broken-later');
    expect(overBudget).toEqual(['broken-later']);
  });

  it('asks for a refresh of a server whose entry key holds another Redis type', async () => {
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.put({ id: 'typed-entry', transport: neverStarted });
    await ctx.redis.rpush(keys.tools('typed-entry'), 'not', 'an', 'entry');
    const calls: string[] = [];
    const reader = createCatalogReader({
      redis: ctx.redis,
      prefix: ctx.prefix,
      onColdServer: (serverId) => void calls.push(serverId),
    });
    const read = await reader.listTools('typed-entry');
    expect(read).toMatchObject({ state: 'cold', coldReason: 'corrupt', definition: { id: 'typed-entry' } });
    expect(calls).toEqual(['typed-entry']);
  });

  it('a throwing or rejecting onColdServer is logged and never reaches the caller', async () => {
    const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
    await store.put({ id: 'cold-throw', transport: neverStarted });
    await store.put({ id: 'cold-reject', transport: neverStarted });
    const { logger, warnings } = recordingLogger();
    const reader = createCatalogReader({
      redis: ctx.redis,
      prefix: ctx.prefix,
      logger,
      onColdServer: (serverId) => {
        if (serverId === 'cold-throw') throw new Error('queue down');
        return Promise.reject(new Error('queue down'));
      },
    });
    const reads = await reader.readMany(['cold-throw', 'cold-reject']);
    expect([...reads.values()].map((read) => read.state)).toEqual(['cold', 'cold']);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(warnings.filter((warning) => warning.error === 'queue down')).toHaveLength(2);
  });

  it('reads N servers in one round trip (one pipeline, no single commands)', async () => {
    const servers = Array.from({ length: 30 }, (_, index) => ({
      definition: { id: `batch-${index}`, transport: neverStarted },
      tools: [tool('t')],
    }));
    await writeCatalog(ctx.redis, ctx.prefix, servers);
    let pipelines = 0;
    let execs = 0;
    let singles = 0;
    const sent: string[] = [];
    const redis = ctx.redis.duplicate();
    const originalPipeline = redis.pipeline.bind(redis);
    redis.pipeline = ((...args: Parameters<typeof redis.pipeline>) => {
      pipelines += 1;
      const pipeline = originalPipeline(...args);
      // Every queued command goes through the pipeline's sendCommand (not in its typings).
      const queued = pipeline as unknown as { sendCommand(command: { name: string; args: unknown[] }): unknown };
      const send = queued.sendCommand.bind(pipeline);
      queued.sendCommand = (command) => {
        sent.push(`${command.name} ${command.args.map(String).join(' ')}`);
        return send(command);
      };
      const exec = pipeline.exec.bind(pipeline);
      pipeline.exec = ((...execArgs: Parameters<typeof exec>) => {
        execs += 1;
        return exec(...execArgs);
      }) as typeof pipeline.exec;
      return pipeline;
    }) as typeof redis.pipeline;
    for (const command of ['get', 'hget', 'mget', 'hgetall', 'hmget'] as const) {
      const original = (redis[command] as (...args: unknown[]) => unknown).bind(redis);
      (redis as unknown as Record<string, unknown>)[command] = (...args: unknown[]) => {
        singles += 1;
        return original(...args);
      };
    }
    try {
      const reader = createCatalogReader({ redis, prefix: ctx.prefix });
      const reads = await reader.readMany(servers.map((server) => server.definition.id));
      expect(reads.size).toBe(30);
      expect([...reads.values()].every((read) => read.state === 'ready')).toBe(true);
      expect({ pipelines, execs, singles }).toEqual({ pipelines: 1, execs: 1, singles: 0 });
      expect(sent.filter((command) => command.split(' ').includes(keys.tools('batch-0')))).toHaveLength(1);
      // Nothing changed: still one round trip, now of version keys instead of entries.
      sent.length = 0;
      const again = await reader.readMany(servers.map((server) => server.definition.id));
      expect([...again.values()].every((read) => read.state === 'ready')).toBe(true);
      expect({ pipelines, execs, singles }).toEqual({ pipelines: 2, execs: 2, singles: 0 });
      // Not one catalog entry among the keys, nor the definitions hash: the definitions version,
      // then one MGET of the 30 version keys and the 30 statuses.
      const sentKeys = sent.flatMap((command) => command.split(' ').slice(1));
      expect(sentKeys.filter((key) => servers.some((server) => key === keys.tools(server.definition.id)))).toEqual([]);
      expect(sent.filter((command) => command.startsWith('hgetall'))).toEqual([]);
      expect(sent.map((command) => command.split(' ')[0])).toEqual(['get', 'mget']);
      expect(sentKeys).toHaveLength(61);
      expect(sentKeys.filter((key) => key === keys.catalogVersion('batch-7'))).toHaveLength(1);
      expect(sentKeys.filter((key) => key === keys.status('batch-7'))).toHaveLength(1);
    } finally {
      redis.disconnect();
    }
  });

  it('reads the server definitions again only when their version moved or is missing', async () => {
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'defs-versioned', transport: neverStarted }, tools: [tool('t')] },
    ]);
    const hgetalls: string[] = [];
    const redis = ctx.redis.duplicate();
    const originalPipeline = redis.pipeline.bind(redis);
    redis.pipeline = ((...args: Parameters<typeof redis.pipeline>) => {
      const pipeline = originalPipeline(...args);
      const queued = pipeline as unknown as { sendCommand(command: { name: string; args: unknown[] }): unknown };
      const send = queued.sendCommand.bind(pipeline);
      queued.sendCommand = (command) => {
        if (command.name === 'hgetall') hgetalls.push(String(command.args[0]));
        return send(command);
      };
      return pipeline;
    }) as typeof redis.pipeline;
    try {
      const reader = createCatalogReader({ redis, prefix: ctx.prefix });
      expect(await reader.listTools('defs-versioned')).toMatchObject({ state: 'ready' });
      expect(hgetalls).toEqual([keys.servers]);
      expect(await reader.listTools('defs-versioned')).toMatchObject({ state: 'ready' });
      expect(hgetalls).toHaveLength(1);
      // A write through the store moves the version with the definition: the next read sees it.
      const store = new ServerStore({ redis: ctx.redis, prefix: ctx.prefix });
      await store.setEnabled('defs-versioned', false);
      expect(await reader.listTools('defs-versioned')).toMatchObject({ state: 'cold', coldReason: 'disabled' });
      expect(hgetalls).toHaveLength(2);
      await store.setEnabled('defs-versioned', true);
      expect(await reader.listTools('defs-versioned')).toMatchObject({ state: 'ready' });
      expect(hgetalls).toHaveLength(3);
      // A store without the version key (written before it existed): the hash is read every time.
      await ctx.redis.del(keys.serversVersion);
      await reader.listTools('defs-versioned');
      await reader.listTools('defs-versioned');
      expect(hgetalls).toHaveLength(5);
    } finally {
      redis.disconnect();
    }
  });

  it('reads an entry again only when its version key moved or is missing', async () => {
    await writeCatalog(ctx.redis, ctx.prefix, [
      { definition: { id: 'versioned', transport: neverStarted }, tools: [tool('first')] },
    ]);
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix });
    const names = async () => (await reader.listTools('versioned')).tools.map((t) => t.name);
    expect(await names()).toEqual(['first']);
    const stored = safeParseJson((await ctx.redis.get(keys.tools('versioned'))) ?? '', catalogEntrySchema);
    if (!stored.success) throw stored.error;
    const entryWith = (name: string) =>
      JSON.stringify(catalogEntrySchema.parse({ ...stored.data, tools: [tool(name)] }));

    // The entry changes behind the reader's back while the version key stays: the reader, which
    // trusts the key, does not read the entry at all and keeps what it parsed.
    const second = entryWith('second');
    await ctx.redis.set(keys.tools('versioned'), second);
    expect(await names()).toEqual(['first']);
    // The key moves, as the warmer's script moves it: the new entry is read.
    await ctx.redis.set(keys.catalogVersion('versioned'), catalogEntryDigest(second));
    expect(await names()).toEqual(['second']);
    // A warmer older than version keys (a rolling upgrade) writes entry and status in one script
    // and leaves the key as it was: the moved status makes the reader read the entry.
    const status = (await ctx.redis.get(keys.status('versioned'))) ?? '';
    await ctx.redis.set(keys.tools('versioned'), entryWith('from-older-warmer'));
    await ctx.redis.set(keys.status('versioned'), JSON.stringify({ ...JSON.parse(status), lastAttemptAt: 1 }));
    expect(await names()).toEqual(['from-older-warmer']);
    // A cache written before version keys existed: without the key, the entry is always read.
    await ctx.redis.set(keys.tools('versioned'), entryWith('third'));
    await ctx.redis.del(keys.catalogVersion('versioned'));
    expect(await names()).toEqual(['third']);
    // A key that does not match what the reader holds reads the entry, and a corrupt one is still
    // refused after the skip path has been taken.
    await ctx.redis.set(keys.tools('versioned'), '{not json');
    await ctx.redis.set(keys.catalogVersion('versioned'), 'moved');
    expect(await reader.listTools('versioned')).toMatchObject({ state: 'cold', coldReason: 'corrupt' });
    // Gone: entry and key deleted together, as a disable does.
    await ctx.redis.del(keys.tools('versioned'), keys.catalogVersion('versioned'));
    expect(await reader.listTools('versioned')).toMatchObject({ state: 'cold', coldReason: 'missing' });
  });

  it('never starts or connects to an MCP server, whatever the state', async () => {
    const reader = createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix, onColdServer: () => {} });
    await reader.readMany(['ready', 'empty', 'never-warmed', 'off', 'moved', 'ghost']);
    await reader.listServers();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(existsSync(marker)).toBe(false);
  });

  it('lists valid server definitions sorted by id', async () => {
    const ids = (await createCatalogReader({ redis: ctx.redis, prefix: ctx.prefix }).listServers()).map(
      (definition) => definition.id,
    );
    expect(ids).toEqual([...ids].sort());
    expect(ids).toContain('ready');
    expect(ids).toContain('off');
  });
});

describe('catalog reader wire segments (real Redis)', () => {
  it('decides server segments over every enabled server in the store, not only the ones read', async () => {
    const local = createTestContext();
    try {
      await writeCatalog(local.redis, local.prefix, [
        { definition: { id: 'team-tools', transport: neverStarted }, tools: [tool('ping')] },
        { definition: { id: 'team_tools', transport: neverStarted }, tools: [tool('ping')] },
        { definition: { id: 'solo', transport: neverStarted }, tools: [tool('ping')] },
      ]);
      const reader = createCatalogReader({ redis: local.redis, prefix: local.prefix });
      const alone = (await reader.readMany(['team-tools', 'solo'])).get('team-tools') as CatalogRead;
      expect(alone.wireSegment).toMatch(/^teamTools_[0-9a-f]{6,}$/);
      const other = createCatalogReader({ redis: local.redis, prefix: local.prefix });
      const both = await other.readMany(['team_tools', 'team-tools']);
      expect(both.get('team-tools')?.wireSegment).toBe(alone.wireSegment);
      expect(both.get('team_tools')?.wireSegment).not.toBe(alone.wireSegment);
      expect((await reader.listTools('solo')).wireSegment).toBe('solo');

      await new ServerStore({ redis: local.redis, prefix: local.prefix }).setEnabled('team_tools', false);
      expect((await reader.listTools('team-tools')).wireSegment).toBe('teamTools');
    } finally {
      await local.close();
    }
  });
});
