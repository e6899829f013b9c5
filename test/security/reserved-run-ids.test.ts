import type { RunningApi } from '@agentq/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

const spec = { assistant: { model: 'scripted:demo' }, input: { prompt: 'hello' } };

// A run id is the BullMQ job id of the run, and a job's hash is stored at `<queue>:<id>`: an id
// such as `wait` would write a hash where the queue keeps its waiting list, and every later add to
// or take from that queue would fail with WRONGTYPE. Such ids are refused before anything is written.
describe('run ids that name a queue key', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
  });

  afterAll(async () => {
    await api?.close();
    await ctx?.close();
  });

  it('are refused with VALIDATION on create and lookup, and the queue keeps working', async () => {
    for (const runId of ['wait', 'meta', 'marker', 'id', 'events', 'paused', 'prioritized', 'metrics']) {
      const created = await http.call('POST', '/v1/runs', { body: { runId, spec } });
      expect([created.status, created.body.error?.code, created.body.error?.field], runId).toEqual([
        400,
        'VALIDATION',
        'runId',
      ]);
      const read = await http.call('GET', `/v1/runs/${runId}`);
      expect([read.status, read.body.error?.code], runId).toEqual([400, 'VALIDATION']);
    }
    // The queue still takes and reads runs (a job hash written at `<queue>:wait` breaks both).
    const ok = await http.call('POST', '/v1/runs', { body: { runId: 'waiting-room', spec } });
    expect(ok.status).toBe(201);
    expect((await http.call('GET', '/v1/runs/waiting-room')).status).toBe(200);
  });
});
