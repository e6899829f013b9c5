import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, startTestApi, testConfig } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { bearerRequest } from './raw-http.js';

const board = '/admin/queues/api/queues';

// Hole 3 and the audit of Bull Board's other writes: a job of `decisions` or `approvals`, or a
// parked run's data, carries authority over a gated call. Bull Board judges the queue by the name
// in the matched route's parameters (decoded), so no spelling of it reaches those writes.
describe('Bull Board cannot forge or alter decisions, approvals or runs', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let queues: Record<string, Queue>;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api } = await startTestApi(ctx, testConfig(ctx)));
    queues = Object.fromEntries(
      Object.values(QUEUE_NAMES).map((name) => [name, new Queue(name, { connection: ctx.redis, prefix: ctx.prefix })]),
    );
  });

  afterAll(async () => {
    await api?.close();
    for (const queue of Object.values(queues ?? {})) {
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await ctx?.close();
  });

  const send = (method: string, path: string, body?: unknown) =>
    bearerRequest(api.url, { token: TEST_TOKEN, method, path, body });
  const queue = (name: string) => queues[name] as Queue;
  const hour = 3_600_000;

  it('refuses editing or promoting a decisions job under any spelling, and still lets it be removed', async () => {
    const data = { approvalId: 'a-1', approved: false, decidedBy: 'alice' };
    const job = await queue(QUEUE_NAMES.decisions).add('decision', data, { delay: hour });
    for (const name of ['decisions', '%64ecisions', 'decisio%6Es']) {
      const edit = await send('PATCH', `${board}/${name}/${job.id}/update-data`, {
        jobData: { ...data, approved: true, decidedBy: 'anyone' },
      });
      expect(edit.status, name).toBe(403);
      expect(edit.body.error.code, name).toBe('FORBIDDEN');
      expect((await send('PUT', `${board}/${name}/${job.id}/promote`)).status, name).toBe(403);
      expect((await send('PUT', `${board}/${name}/promote`)).status, name).toBe(403);
      expect((await send('PUT', `${board}/${name}/retry/failed`)).status, name).toBe(403);
    }
    const stored = await queue(QUEUE_NAMES.decisions).getJob(job.id as string);
    expect(stored?.data).toEqual(data);
    expect(await stored?.getState()).toBe('delayed');
    const clean = await send('PUT', `${board}/%64ecisions/${job.id}/clean`);
    expect(clean.status).toBeLessThan(300);
    expect(await queue(QUEUE_NAMES.decisions).getJob(job.id as string)).toBeUndefined();
  });

  it('refuses every write on an approvals job, however the queue is spelled', async () => {
    const job = await queue(QUEUE_NAMES.approvals).add('approval', { approvalId: 'a-2' }, { delay: hour });
    for (const name of ['approvals', '%61pprovals', 'approval%73']) {
      expect((await send('PUT', `${board}/${name}/${job.id}/promote`)).status, name).toBe(403);
      expect((await send('PUT', `${board}/${name}/promote`)).status, name).toBe(403);
      expect(
        (await send('PATCH', `${board}/${name}/${job.id}/update-data`, { jobData: { approvalId: 'other' } })).status,
        name,
      ).toBe(403);
      expect((await send('PUT', `${board}/${name}/${job.id}/clean`)).status, name).toBe(403);
      expect((await send('POST', `${board}/${name}/add`, { name: 'approval', data: {} })).status, name).toBe(403);
    }
    const stored = await queue(QUEUE_NAMES.approvals).getJob(job.id as string);
    expect(stored?.data).toEqual({ approvalId: 'a-2' });
    expect(await stored?.getState()).toBe('delayed');
  });

  it("refuses adding runs and editing a run's data, and keeps retry and pause", async () => {
    const spec = { assistant: { model: 'scripted:demo', approval: { requireFor: ['*'] } }, input: { prompt: 'x' } };
    const job = await queue(QUEUE_NAMES.agentRuns).add('run', spec, { jobId: 'board-run', delay: hour });
    for (const name of ['agent-runs', '%61gent-runs', 'agent-run%73']) {
      const edit = await send('PATCH', `${board}/${name}/${job.id}/update-data`, {
        jobData: { ...spec, assistant: { model: 'scripted:demo' } },
      });
      expect(edit.status, name).toBe(403);
      expect((await send('POST', `${board}/${name}/add`, { name: 'run', data: spec })).status, name).toBe(403);
      expect((await send('PUT', `${board}/${name}/${job.id}/remove-unprocessed-children`)).status, name).toBe(403);
    }
    expect((await queue(QUEUE_NAMES.agentRuns).getJob('board-run'))?.data).toEqual(spec);
    expect(await queue(QUEUE_NAMES.agentRuns).count()).toBe(1);
    // The operator's ordinary actions still work.
    expect((await send('PUT', `${board}/agent-runs/retry/failed`)).status).toBeLessThan(300);
    expect((await send('PUT', `${board}/%61gent-runs/pause`)).status).toBeLessThan(300);
    expect(await queue(QUEUE_NAMES.agentRuns).isPaused()).toBe(true);
    expect((await send('PUT', `${board}/agent-runs/resume`)).status).toBeLessThan(300);
    expect(await queue(QUEUE_NAMES.agentRuns).isPaused()).toBe(false);
  });

  it('refuses adding or editing knowledge base ingest jobs, which name a file and claim an origin', async () => {
    const data = { kb: 'docs', source: { type: 'file', path: '/etc/passwd' }, origin: 'local', requestedAt: 1 };
    const job = await queue(QUEUE_NAMES.kbIngest).add('ingest', data, { delay: hour });
    for (const name of ['kb-ingest', '%6bb-ingest', 'kb-inges%74']) {
      expect((await send('POST', `${board}/${name}/add`, { name: 'ingest', data })).status, name).toBe(403);
      const edit = await send('PATCH', `${board}/${name}/${job.id}/update-data`, {
        jobData: { ...data, source: { type: 'file', path: '/root/.ssh/id_rsa' } },
      });
      expect(edit.status, name).toBe(403);
    }
    expect((await queue(QUEUE_NAMES.kbIngest).getJob(job.id as string))?.data).toEqual(data);
    expect(await queue(QUEUE_NAMES.kbIngest).count()).toBe(1);
    expect((await send('PUT', `${board}/%6bb-ingest/${job.id}/promote`)).status).toBeLessThan(300);
  });
});

describe('Bull Board guard with run shards', () => {
  let ctx: TestContext;
  let api: RunningApi;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api } = await startTestApi(ctx, testConfig(ctx, { AGENTQ_RUN_SHARDS: '2' })));
  });

  afterAll(async () => {
    await api?.close();
    await ctx?.close();
  });

  it('judges a shard queue by its decoded name', async () => {
    for (const path of ['r1.%61gent-runs/add', 'r1.agent-run%73/add', 'r0.%61pprovals/add', 'r%31.approvals/add']) {
      const answer = await bearerRequest(api.url, {
        token: TEST_TOKEN,
        method: 'POST',
        path: `${board}/${path}`,
        body: { name: 'x', data: {} },
      });
      expect(answer.status, path).toBe(403);
      expect(answer.body.error.code, path).toBe('FORBIDDEN');
    }
  });
});
