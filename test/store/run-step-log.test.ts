import { AgentqError, isRetryable, runCheckpointSchema, silentLogger, type RunCheckpoint } from '@agentq/shared';
import {
  elicitationOfToolCall,
  keyNames,
  registerElicitation,
  RunStore,
  runStateKeys,
  unansweredElicitationsOfRun,
  type CheckpointWrite,
} from '@agentq/store';
import { Queue, QueueEvents } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

function fresh(runId: string): RunCheckpoint {
  return runCheckpointSchema.parse({
    runId,
    incarnation: 'inc-1',
    messages: [{ role: 'user', content: 'go' }],
    allowedNames: [],
    inspectedNames: [],
    step: 0,
    usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
    catalogVersion: { svc: 'v1' },
    updatedAt: 1,
  });
}

/** The checkpoint after one more step: a tool call and its result, as `applyStep` folds them. */
function withStep(checkpoint: RunCheckpoint, output = 'result'): RunCheckpoint {
  const step = checkpoint.step;
  const id = `call-${step}`;
  return {
    ...checkpoint,
    messages: [
      ...checkpoint.messages,
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'mcp__svc__look', input: {} }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: id, toolName: 'mcp__svc__look', output: { type: 'text', value: output } },
        ],
      },
    ],
    steps: [
      ...checkpoint.steps,
      {
        step,
        text: '',
        finishReason: 'tool-calls',
        toolCalls: [id],
        usage,
        catalogVersion: checkpoint.catalogVersion,
        at: 10 + step,
      },
    ],
    step: step + 1,
    updatedAt: 10 + step,
  };
}

describe('the step log of a run', () => {
  let ctx: TestContext;
  let store: RunStore;

  beforeAll(() => {
    ctx = createTestContext();
    store = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('appends each step as a head and the new items only, and reads the run back whole', async () => {
    let checkpoint = fresh('log-1');
    const writes: CheckpointWrite[] = [await store.write(checkpoint)];
    for (let step = 0; step < 20; step += 1) {
      checkpoint = withStep(checkpoint);
      writes.push(await store.write(checkpoint));
    }
    expect(writes[0]).toMatchObject({ messages: 1, steps: 0 });
    for (const write of writes.slice(1)) expect(write).toMatchObject({ messages: 2, steps: 1 });
    // Flat: the 20th step sends what the 2nd did, give or take the digits of its counters.
    expect(Math.abs((writes[20] as CheckpointWrite).bytes - (writes[2] as CheckpointWrite).bytes)).toBeLessThan(16);

    // Read back by another process (no memory of what was stored): the same run, derived fields too.
    const reader = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    const read = await reader.read('log-1');
    expect(read?.messages).toEqual(checkpoint.messages);
    expect(read?.steps).toEqual(checkpoint.steps);
    expect(read?.steps[19]?.catalogVersion).toEqual({ svc: 'v1' });
    expect(read?.toolCalls).toHaveLength(20);
    expect(read?.toolCalls[19]).toMatchObject({ toolCallId: 'call-19', output: 'result', step: 19 });
    expect(read?.executedToolCallIds).toHaveLength(20);
    expect(read?.step).toBe(20);
    const head = JSON.parse((await ctx.redis.get(keyNames(ctx.prefix).run('log-1'))) as string);
    expect(head).toMatchObject({ format: 'step-log', messageCount: 41, stepCount: 20 });
    expect(head.messages).toBeUndefined();

    // A reader's copy continues where the log ends: the next write sends the next step only.
    expect(await reader.write(withStep(read as RunCheckpoint))).toMatchObject({ messages: 2, steps: 1 });
  });

  it('rewrites a stored message that the run changed (approval responses joining a tool message)', async () => {
    const first = withStep(fresh('log-2'));
    await store.write(first);
    const last = first.messages.at(-1) as { role: string; content: unknown[] };
    const response = { type: 'tool-approval-response', approvalId: 'a-1', approved: true };
    const changed = {
      ...first,
      messages: [...first.messages.slice(0, -1), { ...last, content: [...last.content, response] }],
    };
    expect(await store.write(changed)).toMatchObject({ messages: 1, steps: 0 });
    const read = await new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() }).read('log-2');
    expect(read?.messages).toEqual(changed.messages);
  });

  it('replaces a longer log when a run starts afresh under the same id', async () => {
    await store.write(withStep(withStep(fresh('log-3'))));
    const restarted = { ...fresh('log-3'), incarnation: 'inc-2' };
    await new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() }).write(restarted);
    const read = await new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() }).read('log-3');
    expect(read?.messages).toEqual(restarted.messages);
    expect(read?.steps).toEqual([]);
    expect(read?.incarnation).toBe('inc-2');
  });

  it('reads a single-blob checkpoint written before the log, and moves it to the log on the next write', async () => {
    const old = withStep(withStep(fresh('log-old')));
    // As a worker from before the step log wrote it: the whole checkpoint as one JSON value.
    const { catalogVersion: _versions, ...oldStep } = old.steps[0] as RunCheckpoint['steps'][number];
    const blob = { ...old, steps: [oldStep, oldStep], toolCalls: [], executedToolCallIds: ['call-0', 'call-1'] };
    await ctx.redis.set(keyNames(ctx.prefix).run('log-old'), JSON.stringify(blob));
    const read = (await store.read('log-old')) as RunCheckpoint;
    expect(read.messages).toEqual(old.messages);
    expect(read.step).toBe(2);
    expect(read.executedToolCallIds).toEqual(['call-0', 'call-1']);

    // The first write after the upgrade moves the whole history over, once; then steps are flat.
    const next = withStep(read);
    expect(await store.write(next)).toMatchObject({ messages: 7, steps: 3 });
    expect(await store.write(withStep(next))).toMatchObject({ messages: 2, steps: 1 });
    const again = await new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() }).read('log-old');
    expect(again?.messages).toHaveLength(9);
    expect(again?.steps.map((step) => step.step)).toEqual([0, 0, 2, 3]);
  });

  it('tells a single-blob checkpoint by its own shape, whatever its tool inputs spell', async () => {
    const old = withStep(fresh('log-spelt'));
    const [call, result] = old.messages.slice(-2) as RunCheckpoint['messages'];
    const spelt = {
      ...call,
      content: [{ type: 'tool-call', toolCallId: 'call-0', toolName: 'mcp__svc__look', input: { format: 'step-log' } }],
    } as RunCheckpoint['messages'][number];
    const blob = { ...old, messages: [...old.messages.slice(0, -2), spelt, result], toolCalls: [] };
    await ctx.redis.set(keyNames(ctx.prefix).run('log-spelt'), JSON.stringify(blob));
    const read = await store.read('log-spelt');
    expect(read?.messages).toEqual(blob.messages);
    expect(read?.step).toBe(1);
  });

  it('gives every key of a finished run its TTL together', async () => {
    const done = { ...withStep(fresh('log-4')), status: 'completed' as const };
    await ctx.redis.hset(keyNames(ctx.prefix).runToolResults('log-4'), 'call-0', '{"ok":true,"output":"result"}');
    await store.recordStepAnswer({ runId: 'log-4', record: '{"step":0}' });
    await store.write(done);
    const ttls = await Promise.all(runStateKeys(keyNames(ctx.prefix), 'log-4').map((key) => ctx.redis.ttl(key)));
    for (const ttl of ttls) expect(ttl).toBeGreaterThan(24 * 3600);
  });

  it('writes nothing when a list holds fewer items than the store remembers', async () => {
    const first = withStep(withStep(fresh('log-short')));
    await store.write(first);
    const keys = keyNames(ctx.prefix);
    // Someone cut the messages behind the store's back: the step's messages would land at the
    // wrong index. The step list, where the append itself fits, must be left as it was too.
    await ctx.redis.ltrim(keys.runMessages('log-short'), 0, 1);
    const refused = await store.write(withStep(first)).catch((error: unknown) => error);
    expect(AgentqError.isInstance(refused) && refused.code).toBe('INTERNAL');
    expect(await ctx.redis.lrange(keys.runMessages('log-short'), 0, -1)).toHaveLength(2);
    expect(await ctx.redis.llen(keys.runSteps('log-short'))).toBe(2);
    expect(JSON.parse((await ctx.redis.get(keys.run('log-short'))) as string)).toMatchObject({ step: 2 });
  });

  it('reports progress with the step, as job.updateProgress does, for the job and QueueEvents', async () => {
    const connection = new Redis(ctx.redisUrl, { maxRetriesPerRequest: null });
    const eventsConnection = connection.duplicate();
    const queue = new Queue('agent-runs', { connection, prefix: ctx.prefix });
    // From the stream's start: the report cannot slip in before the reader's first XREAD.
    const events = new QueueEvents('agent-runs', {
      connection: eventsConnection,
      prefix: ctx.prefix,
      lastEventId: '0',
    });
    try {
      await events.waitUntilReady();
      await queue.add('run', {}, { jobId: 'log-progress' });
      const heard = new Promise<unknown>((resolve) => {
        events.on('progress', ({ jobId, data }) => {
          if (jobId === 'log-progress') resolve(data);
        });
      });
      const progress = { step: 1, lastTool: 'mcp__svc__look', status: 'running' as const };
      await store.write(withStep(fresh('log-progress')), { progress });
      expect(await heard).toEqual(progress);
      expect((await queue.getJob('log-progress'))?.progress).toEqual(progress);
      // Without a job there is nothing to report to: the step is written, no job hash appears.
      await store.write(withStep(fresh('log-no-job')), { progress });
      expect(await ctx.redis.exists(keyNames(ctx.prefix).queueJob('agent-runs', 'log-no-job'))).toBe(0);
      expect((await store.read('log-no-job'))?.step).toBe(1);
    } finally {
      await events.close();
      await queue.obliterate({ force: true });
      await queue.close();
      connection.disconnect();
      eventsConnection.disconnect();
    }
  });

  it('treats a head whose log is missing items as unreadable', async () => {
    await store.write(withStep(fresh('log-5')));
    await ctx.redis.rpop(keyNames(ctx.prefix).runMessages('log-5'));
    expect(
      await new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() }).read('log-5'),
    ).toBeNull();
  });

  it('a strict read (to resume the run) fails with RUN_STATE_CORRUPT on an unreadable checkpoint', async () => {
    const reader = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    await store.write(withStep(withStep(fresh('log-6'))));
    expect((await reader.read('log-6', { strict: true }))?.step).toBe(2);
    await ctx.redis.lset(keyNames(ctx.prefix).runMessages('log-6'), 1, '{"corrupt":true}');
    const failure = await reader.read('log-6', { strict: true }).catch((error: unknown) => error);
    expect(AgentqError.isInstance(failure) && failure.code).toBe('RUN_STATE_CORRUPT');
    expect(isRetryable(failure)).toBe(false);
    expect(await reader.read('log-6')).toBeNull();
    // A blob that is not a checkpoint at all, likewise.
    await ctx.redis.set(runStateKeys(keyNames(ctx.prefix), 'log-7')[0], '{"runId":');
    await expect(reader.read('log-7', { strict: true })).rejects.toMatchObject({ code: 'RUN_STATE_CORRUPT' });
  });
  it('reads back every message shape the model loop writes, and names the item of one that is damaged', async () => {
    const reader = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    const providerOptions = { openai: { itemId: 'i-1' } };
    const messages = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'go' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', image: 'aGVsbG8=', mediaType: 'image/png' },
          { type: 'file', data: 'https://example.com/a.pdf', mediaType: 'application/pdf', filename: 'a.pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'thinking', providerOptions },
          { type: 'text', text: 'calling', providerOptions },
          { type: 'tool-call', toolCallId: 'c-1', toolName: 'mcp__svc__look', input: {}, providerExecuted: false },
          { type: 'tool-approval-request', approvalId: 'a-1', toolCallId: 'c-1' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-approval-response', approvalId: 'a-1', approved: true },
          {
            type: 'tool-result',
            toolCallId: 'c-1',
            toolName: 'mcp__svc__look',
            output: { type: 'content', value: [{ type: 'media', data: 'aGVsbG8=', mediaType: 'image/png' }] },
          },
          // As written before tool results had an `output`.
          { type: 'tool-result', toolCallId: 'c-0', toolName: 'mcp__svc__look', result: { done: true } },
        ],
      },
      { role: 'assistant', content: 'done', providerOptions },
    ] as RunCheckpoint['messages'];
    await store.write({ ...fresh('log-shapes'), messages });
    expect((await reader.read('log-shapes', { strict: true }))?.messages).toEqual(messages);

    const messagesKey = keyNames(ctx.prefix).runMessages('log-shapes');
    for (const damaged of [
      '{"role":"assistant","content":5}',
      '{"role":"tool","content":"text"}',
      '{"role":"user","content":[{"type":"text","text":5}]}',
      '{"role":"user","content":[{"text":"no type"}]}',
      '{"role":"robot","content":"hi"}',
    ]) {
      await ctx.redis.lset(messagesKey, 3, damaged);
      const failure = await reader.read('log-shapes', { strict: true }).catch((error: unknown) => error);
      expect(AgentqError.isInstance(failure) && failure.code).toBe('RUN_STATE_CORRUPT');
      expect((failure as Error).message).toContain(`item 3 of ${messagesKey}`);
      expect(isRetryable(failure)).toBe(false);
    }
  });

  it('fails with RUN_STATE_CORRUPT naming a key of the run that holds another type, strict or not', async () => {
    const reader = new RunStore({ redis: ctx.redis, prefix: ctx.prefix, logger: silentLogger() });
    const [head, journal, messagesKey, , stepAnswer] = runStateKeys(keyNames(ctx.prefix), 'log-type');
    const corrupt = async (operation: Promise<unknown>, key: string, type: string) => {
      const failure = await operation.catch((error: unknown) => error);
      expect(AgentqError.isInstance(failure) && failure.code).toBe('RUN_STATE_CORRUPT');
      expect((failure as Error).message).toContain(`key ${key} holds a ${type}`);
      expect(isRetryable(failure)).toBe(false);
    };
    await store.write(withStep(fresh('log-type')));
    await ctx.redis.del(head);
    await ctx.redis.hset(head, 'a', 'b');
    await corrupt(reader.read('log-type'), head, 'hash');
    await corrupt(reader.read('log-type', { strict: true }), head, 'hash');
    await ctx.redis.del(head, messagesKey);
    await ctx.redis.set(messagesKey, 'x');
    await corrupt(reader.write(withStep(fresh('log-type'))), messagesKey, 'string');
    await ctx.redis.set(journal, 'x');
    await corrupt(reader.recordedToolResults('log-type'), journal, 'string');
    await corrupt(reader.claimToolCall({ runId: 'log-type', toolCallId: 'c', owner: 'o' }), journal, 'string');
    const result = { ok: true as const, output: 'x' };
    await corrupt(reader.recordToolResult({ runId: 'log-type', toolCallId: 'c', result }), journal, 'string');
    await ctx.redis.rpush(stepAnswer, 'x');
    await corrupt(reader.readStepAnswer('log-type'), stepAnswer, 'list');
  });

  it("fails with RUN_STATE_CORRUPT naming a run's elicitation index that holds another type", async () => {
    const index = keyNames(ctx.prefix).runElicitations('log-asks');
    await ctx.redis.set(index, 'x');
    const options = { redis: ctx.redis, prefix: ctx.prefix, runId: 'log-asks' };
    const request = {
      elicitationId: 'e-1',
      runId: 'log-asks',
      incarnation: 'inc-1',
      toolCallId: 'c-1',
      toolName: 'mcp__svc__ask',
      serverId: 'svc',
      argsDigest: 'a',
      digest: 'd',
      message: 'name?',
      requestedSchema: {},
      requestedAt: 1,
      expiresAt: Date.now() + 60_000,
    };
    // One at a time: each starts only when the one before it has failed and been looked at.
    for (const operation of [
      () => elicitationOfToolCall({ ...options, toolCallId: 'c-1' }),
      () => unansweredElicitationsOfRun({ ...options, incarnation: 'inc-1' }),
      () => registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request }),
    ]) {
      const failure = await operation().catch((error: unknown) => error);
      expect(AgentqError.isInstance(failure) && failure.code).toBe('RUN_STATE_CORRUPT');
      expect((failure as Error).message).toContain(`key ${index} holds a string`);
    }
  });
});
