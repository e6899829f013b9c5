import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { type RunSpecInput } from '@agentq/shared';
import { approvalShardIndex } from '@agentq/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import { eventually, startTestWorker } from './helpers/worker-harness.js';

const counterTool = 'mcp__fx__counterIncrement';

// Run shards on a single Redis: routing by run id, and a change of AGENTQ_RUN_SHARDS that keeps
// runs enqueued (and parked) under the old count readable, decidable and consumed.
describe('run shards', () => {
  let ctx: TestContext;
  let folder: string;
  let counterFile: string;
  const workers: AgentWorker[] = [];
  const clients: AgentqClient[] = [];

  const spec = (note: string, gated: boolean): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      script: [{ toolCalls: [{ toolName: counterTool, input: { note } }] }, { text: `done ${note}` }],
    },
    input: { prompt: 'count' },
    ...(gated ? { approval: { requireFor: ['fx:counter_increment'] } } : {}),
  });
  const client = (runShards: number) => {
    const created = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, runShards });
    clients.push(created);
    return created;
  };
  const worker = async (runShards: number) => {
    const started = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_RUN_SHARDS: String(runShards) },
    });
    workers.push(started);
    return started;
  };

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-shards-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
  });

  afterEach(async () => {
    for (const each of workers.splice(0)) await each.close();
  });

  afterAll(async () => {
    for (const each of clients.splice(0)) await each.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('spreads runs over shard queues by run id and runs each once', async () => {
    const producer = client(4);
    await worker(4);
    const runIds = Array.from({ length: 12 }, (_, index) => `spread-${index}`);
    for (const runId of runIds) await producer.enqueueRun(spec(runId, false), { runId });
    const results = await Promise.all(runIds.map((runId) => producer.waitForRun(runId, { timeoutMs: 45_000 })));
    expect(results.map((result) => result.text)).toEqual(runIds.map((runId) => `done ${runId}`));
    const used = new Set(runIds.map((runId) => producer.shards.forRun(runId).prefix));
    expect(used.size).toBeGreaterThan(1);
    for (const runId of runIds) {
      const shard = producer.shards.forRun(runId);
      // The checkpoint lives under the run's shard and nowhere else.
      expect(await ctx.redis.exists(shard.keys.run(runId))).toBe(1);
      expect(await ctx.redis.exists(`${ctx.prefix}:run.${runId}`)).toBe(0);
    }
    const notes = await readCounterNotes(counterFile);
    for (const runId of runIds) expect(notes.filter((note) => note === runId)).toHaveLength(1);
  });

  it('keeps runs of an earlier shard count readable, decidable and consumed after the count changes', async () => {
    // Under one shard (the layout of every deployment before sharding): one run parks for an
    // approval, another is queued while no worker runs.
    const before = client(1);
    await worker(1);
    await before.enqueueRun(spec('parked-early', true), { runId: 'parked-early' });
    const pending = await eventually(async () => {
      const [first] = await before.listPendingApprovals({ runId: 'parked-early' });
      return first;
    });
    expect(approvalShardIndex(pending.approvalId)).toBeUndefined();
    for (const each of workers.splice(0)) await each.close();
    await before.enqueueRun(spec('queued-early', false), { runId: 'queued-early' });

    // The deployment moves to 8 shards: new processes must still find, decide and run both.
    const after = client(8);
    await worker(8);
    expect((await after.getRun('parked-early')).state).toBe('waiting-approval');
    expect((await after.listPendingApprovals()).map((approval) => approval.approvalId)).toContain(pending.approvalId);
    await after.decide({ approvalId: pending.approvalId, approved: true, decidedBy: 'operator' });
    expect((await after.waitForRun('parked-early', { timeoutMs: 45_000 })).text).toBe('done parked-early');
    expect((await after.waitForRun('queued-early', { timeoutMs: 45_000 })).text).toBe('done queued-early');

    // A new run under the new count lands in a shard, and its approval names that shard.
    await after.enqueueRun(spec('parked-late', true), { runId: 'parked-late' });
    const late = await eventually(async () => {
      const [first] = await after.listPendingApprovals({ runId: 'parked-late' });
      return first;
    });
    expect(approvalShardIndex(late.approvalId)).toBe(after.shards.forRun('parked-late').index);
    await after.decide({ approvalId: late.approvalId, approved: false, decidedBy: 'operator' });
    const result = await after.waitForRun('parked-late', { timeoutMs: 45_000 });
    expect(result.toolCalls[0]?.approval).toMatchObject({ approvalId: late.approvalId, approved: false });
    expect(await readCounterNotes(counterFile)).not.toContain('parked-late');
  });
});
