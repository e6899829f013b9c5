import { createAgentqClient, type AgentqClient } from '@agentq/client';
import {
  AgentqError,
  QUEUE_NAMES,
  catalogEntrySchema,
  definitionHash,
  digestOf,
  type CatalogTool,
} from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { Queue, Worker } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../helpers/eventually.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const spec = (prompt = 'hello') => ({
  assistant: { model: 'scripted:test', script: [{ text: 'done' }] },
  input: { prompt },
});

async function codeOf(promise: Promise<unknown>): Promise<{ code?: string; field?: string }> {
  try {
    await promise;
  } catch (error) {
    if (AgentqError.isInstance(error)) return { code: error.code, field: error.field };
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('@agentq/client against Redis', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let runs: Queue;

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, runAttempts: 2 });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await client.close();
    await client.close();
    await runs.obliterate({ force: true });
    await runs.close();
    await ctx.close();
  });

  it('enqueues a validated spec once per run id and rejects a different spec under the same id', async () => {
    const first = await client.enqueueRun(spec(), { runId: 'idem-1' });
    const again = await client.enqueueRun(spec(), { runId: 'idem-1' });
    expect(first).toEqual({ runId: 'idem-1', created: true });
    expect(again).toEqual({ runId: 'idem-1', created: false });
    expect(await codeOf(client.enqueueRun(spec('other'), { runId: 'idem-1' }))).toEqual({
      code: 'CONFLICT',
      field: 'runId',
    });
    const job = await runs.getJob('idem-1');
    expect(job?.opts.attempts).toBe(2);
    expect(job?.data.approval).toEqual({ requireFor: [] });
    expect(await runs.getJobCountByTypes('waiting')).toBe(1);
  });

  it('gives CONFLICT to every loser when different specs race for one run id', async () => {
    const attempts = await Promise.allSettled(
      ['a', 'b', 'c', 'd'].map((prompt) => client.enqueueRun(spec(prompt), { runId: 'race-1' })),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled');
    expect(won).toHaveLength(1);
    for (const attempt of attempts) {
      if (attempt.status === 'rejected') expect((attempt.reason as { code?: string }).code).toBe('CONFLICT');
    }
    await runs.remove('race-1');
  });

  it('writes nothing for an invalid spec and names the field', async () => {
    const before = await runs.count();
    const bad = await codeOf(client.enqueueRun({ assistant: { model: 'no-colon' }, input: { prompt: 'x' } }));
    expect(bad).toEqual({ code: 'VALIDATION', field: 'assistant.model' });
    expect(await codeOf(client.enqueueRun(spec(), { runId: 'a:b' }))).toMatchObject({ code: 'VALIDATION' });
    expect(await runs.count()).toBe(before);
  });

  it('refuses a spec naming an MCP server the store does not know, naming the id', async () => {
    const asOperator = { origin: 'operator' } as const;
    await client.putServer({ id: 'known', transport: { type: 'stdio', command: 'node' } }, asOperator);
    await client.putServer(
      { id: 'sleeping', transport: { type: 'stdio', command: 'node' }, enabled: false },
      asOperator,
    );
    const before = await runs.count();
    const named = (assistant: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      ...spec(),
      ...extra,
      assistant: { ...spec().assistant, ...assistant },
    });
    const refusal = async (input: unknown) => {
      try {
        await client.enqueueRun(input);
      } catch (error) {
        if (AgentqError.isInstance(error)) return error as AgentqError & { issues?: Array<{ field: string }> };
        throw error;
      }
      throw new Error('expected a rejection');
    };
    const byServer = await refusal(named({ mcpServers: ['known', 'ghost'] }));
    expect(byServer.code).toBe('VALIDATION');
    expect(byServer.field).toBe('assistant.mcpServers.1');
    expect(byServer.message).toContain('ghost');
    const byTool = await refusal(named({ mcpServers: ['known'] }, { tools: ['known:ping', 'phantom:ping'] }));
    expect(byTool.code).toBe('VALIDATION');
    expect(byTool.field).toBe('tools.1');
    expect(byTool.message).toContain('phantom');
    expect(await runs.count()).toBe(before);
    // Known servers pass, disabled ones too (the run is told at run time).
    const { runId } = await client.enqueueRun(named({ mcpServers: ['known', 'sleeping'] }));
    await runs.remove(runId);
    await client.removeServer('known');
    await client.removeServer('sleeping');
  });

  it('reports a queued run, NOT_FOUND for an unknown one, and cancels a queued run', async () => {
    const { runId } = await client.enqueueRun(spec());
    const run = await client.getRun(runId);
    expect(run.state).toBe('waiting');
    expect(run.spec?.input).toEqual({ prompt: 'hello' });
    expect(await codeOf(client.getRun('missing-run'))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await client.cancelRun(runId)).toEqual({ runId, previousState: 'waiting' });
    expect(await codeOf(client.getRun(runId))).toMatchObject({ code: 'NOT_FOUND' });
    expect(await codeOf(client.cancelRun(runId))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it('waits for a run to complete or fail, and times out with TIMEOUT', async () => {
    const ok = await client.enqueueRun(spec(), { runId: 'wait-ok' });
    const bad = await client.enqueueRun(spec(), { runId: 'wait-bad' });
    const slow = await client.enqueueRun(spec(), { runId: 'wait-slow' });
    const result = {
      runId: 'wait-ok',
      text: 'fine',
      finishReason: 'stop',
      steps: [],
      toolCalls: [],
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      catalogVersion: {},
    };
    // Finish the two jobs by hand, the way a worker would, to test the client alone.
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { Worker } = await import('bullmq');
    const worker = new Worker(
      QUEUE_NAMES.agentRuns,
      async (job) => {
        if (job.id === 'wait-bad') throw new Error('model exploded');
        if (job.id === 'wait-slow') await gate;
        return result;
      },
      { connection: ctx.redis.duplicate(), prefix: ctx.prefix, concurrency: 3 },
    );
    try {
      const seen: string[] = [];
      await expect(
        client.waitForRun(ok.runId, { timeoutMs: 10_000, onUpdate: (run) => seen.push(run.state) }),
      ).resolves.toMatchObject({ text: 'fine' });
      expect(seen.at(-1)).toBe('completed');
      expect(await codeOf(client.waitForRun(bad.runId, { timeoutMs: 10_000 }))).toMatchObject({ code: 'RUN_FAILED' });
      expect((await client.getRun(bad.runId)).error?.message).toContain('model exploded');
      expect(await codeOf(client.waitForRun(slow.runId, { timeoutMs: 50 }))).toMatchObject({ code: 'TIMEOUT' });
      expect(await codeOf(client.cancelRun(slow.runId))).toMatchObject({ code: 'CONFLICT' });
      release();
      await client.waitForRun(slow.runId, { timeoutMs: 10_000 });
      expect(await codeOf(client.cancelRun(slow.runId))).toMatchObject({ code: 'CONFLICT' });
    } finally {
      await worker.close();
    }
  });

  it('creates, lists and removes schedules through BullMQ job schedulers', async () => {
    const schedule = await client.scheduleRun('nightly', { cron: '0 3 * * *', spec: spec('nightly') });
    expect(schedule.nextRunAt).toBeGreaterThan(Date.now());
    await client.scheduleRun('often', { everyMs: 60_000, spec: spec('often') });
    const listed = await client.listSchedules();
    expect(listed.map((entry) => entry.scheduleId).sort()).toEqual(['nightly', 'often']);
    expect(listed.find((entry) => entry.scheduleId === 'nightly')).toMatchObject({ cron: '0 3 * * *' });
    expect(listed.find((entry) => entry.scheduleId === 'often')?.spec?.input).toEqual({ prompt: 'often' });
    expect(await codeOf(client.scheduleRun('broken', { cron: 'not a cron', spec: spec() }))).toEqual({
      code: 'VALIDATION',
      field: 'cron',
    });
    expect(await codeOf(client.scheduleRun('both', { cron: '* * * * *', everyMs: 1000, spec: spec() }))).toMatchObject({
      code: 'VALIDATION',
    });
    // A schedule naming a server the store does not know is refused once, not at every firing.
    const ghost = { ...spec(), assistant: { ...spec().assistant, mcpServers: ['ghost-server'] } };
    expect(await codeOf(client.scheduleRun('ghost', { everyMs: 60_000, spec: ghost }))).toEqual({
      code: 'VALIDATION',
      field: 'assistant.mcpServers.0',
    });
    expect((await client.listSchedules()).map((entry) => entry.scheduleId)).not.toContain('ghost');
    await client.removeSchedule('nightly');
    await client.removeSchedule('often');
    expect(await client.listSchedules()).toEqual([]);
    expect(await codeOf(client.removeSchedule('nightly'))).toMatchObject({ code: 'NOT_FOUND' });
  });

  it("cancels a run its schedule already fired, and refuses only the schedule's next one", async () => {
    await client.scheduleRun('fired', { everyMs: 60_000, spec: spec('fired') });
    const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    // A worker takes the schedule's first run and fails it once: the run waits for its retry, and
    // the schedule has moved on to its next run.
    const taken = new Promise<string>((resolve) => {
      const worker = new Worker(
        QUEUE_NAMES.agentRuns,
        async (job) => {
          if (job.repeatJobKey === 'fired') resolve(String(job.id));
          throw new Error('provider down');
        },
        { connection: ctx.redis.duplicate(), prefix: ctx.prefix, autorun: false },
      );
      worker.on('failed', (job) => {
        if (job?.repeatJobKey === 'fired') void worker.close();
      });
      void runs.getDelayed().then(async (delayed) => {
        for (const job of delayed) if (job.repeatJobKey === 'fired') await job.promote();
        await worker.run();
      });
    });
    const firedId = await taken;
    try {
      await eventually(async () => (await runs.getJob(firedId))?.attemptsMade === 1, 'the first attempt to fail');
      expect(await (await runs.getJob(firedId))?.getState()).toBe('delayed');
      expect(await client.cancelRun(firedId)).toEqual({ runId: firedId, previousState: 'delayed' });
      expect(await runs.getJob(firedId)).toBeUndefined();
      const next = (await runs.getDelayed()).find((job) => job.repeatJobKey === 'fired');
      expect(next?.id).toMatch(/^repeat:fired:/);
      const refused = await codeOf(client.cancelRun(String(next?.id)));
      expect(refused).toMatchObject({ code: 'CONFLICT' });
    } finally {
      await client.removeSchedule('fired');
      await runs.close();
    }
  });

  it('manages servers and reads their catalog from the cache only', async () => {
    const refresh = new Queue(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis, prefix: ctx.prefix });
    try {
      // A stdio command is the operator's to define (as the API's caller it is FORBIDDEN).
      const stored = await client.putServer(
        {
          id: 'everything',
          transport: { type: 'stdio', command: 'mcp-server-everything', args: ['stdio'] },
          alwaysAsk: ['get-env'],
        },
        { origin: 'operator' },
      );
      expect(stored.enabled).toBe(true);
      expect(await codeOf(client.putServer({ id: 'Bad Id', transport: { type: 'stdio', command: 'x' } }))).toEqual({
        code: 'VALIDATION',
        field: 'id',
      });
      expect((await client.listServers()).map((server) => [server.definition.id, server.status])).toEqual([
        ['everything', null],
      ]);

      const never = await client.getCatalog('everything');
      expect(never.state).toBe('never-warmed');
      const tools: CatalogTool[] = [{ name: 'echo', inputSchema: { type: 'object' } }];
      const entry = catalogEntrySchema.parse({
        tools,
        definitionHash: definitionHash(stored),
        refreshedAt: Date.now() - 5_000,
        state: 'connected',
        version: digestOf(tools),
      });
      await ctx.redis.set(keyNames(ctx.prefix).tools('everything'), JSON.stringify(entry));
      const warm = await client.getCatalog('everything');
      expect(warm).toMatchObject({ state: 'connected', version: entry.version });
      expect(warm.tools.map((tool) => tool.name)).toEqual(['echo']);
      expect(warm.ageMs).toBeGreaterThanOrEqual(5_000);

      await client.refreshServer('everything');
      await client.refreshServer('everything');
      await client.restartServer('everything');
      const reasons = (await refresh.getJobs(['waiting', 'delayed', 'prioritized'])).map((job) => job.data.reason);
      expect(reasons.filter((reason) => reason === 'on-demand').length).toBe(1);

      await client.setServerEnabled('everything', false);
      expect(await codeOf(client.refreshServer('everything'))).toMatchObject({ code: 'CONFLICT' });
      expect(await codeOf(client.setServerEnabled('nope', true))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await codeOf(client.refreshServer('nope'))).toMatchObject({ code: 'NOT_FOUND' });
      await client.removeServer('everything');
      expect(await codeOf(client.removeServer('everything'))).toMatchObject({ code: 'NOT_FOUND' });
      await ctx.redis.del(keyNames(ctx.prefix).tools('everything'));
      expect(await codeOf(client.getCatalog('everything'))).toMatchObject({ code: 'NOT_FOUND' });
    } finally {
      await refresh.obliterate({ force: true });
      await refresh.close();
    }
  });
});
