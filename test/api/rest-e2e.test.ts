import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import {
  TEST_TOKEN,
  demoSpec,
  eventually,
  everythingServer,
  parseExposition,
  startTestDeployment,
  type TestDeployment,
} from './start-test-api.js';

const scripted = (text: string) => ({
  assistant: { model: 'scripted:test', script: [{ text }] },
  input: { prompt: 'say something' },
});

describe('REST end to end (warmer + worker + API, real Redis and server-everything)', () => {
  let ctx: TestContext;
  let deployment: TestDeployment;

  beforeAll(async () => {
    ctx = createTestContext();
    deployment = await startTestDeployment(ctx);
    const { id, ...definition } = everythingServer;
    expect((await deployment.http.call('PUT', `/v1/servers/${id}`, { body: definition })).status).toBe(200);
    await eventually(
      async () => {
        const catalog = await deployment.http.call('GET', `/v1/catalog/${id}`);
        return catalog.body.state === 'connected' ? catalog.body : undefined;
      },
      45_000,
      'server-everything to be warmed',
    );
  });

  afterAll(async () => {
    await deployment?.close();
    await ctx.close();
  });

  async function waitForState(runId: string, states: string[]) {
    return await eventually(
      async () => {
        const run = await deployment.http.call('GET', `/v1/runs/${runId}?waitMs=1000`);
        return states.includes(run.body.state) ? run.body : undefined;
      },
      45_000,
      `run ${runId} to reach ${states.join('/')}`,
    );
  }

  async function scrape(): Promise<Map<string, number>> {
    const response = await fetch(`${deployment.api.url}/metrics`, {
      headers: { authorization: `Bearer ${TEST_TOKEN}` },
    });
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  }

  it('enqueues a run over HTTP, long-polls it and returns the result', async () => {
    const before = (await scrape()).get('agentq_runs_total{outcome="completed"}') ?? 0;
    const created = await deployment.http.call('POST', '/v1/runs', {
      body: { runId: 'e2e-hello', spec: scripted('hello there') },
    });
    expect(created.status).toBe(201);
    const run = await waitForState('e2e-hello', ['completed', 'failed']);
    expect(run.state).toBe('completed');
    expect(run.result.text).toBe('hello there');
    expect(run.result.steps).toHaveLength(1);
    const after = await scrape();
    expect(after.get('agentq_runs_total{outcome="completed"}')).toBeGreaterThan(before);
    expect(after.get('agentq_run_steps_count')).toBeGreaterThanOrEqual(1);
    expect(after.get('agentq_run_duration_seconds_count')).toBeGreaterThanOrEqual(1);
  });

  it('reports a failed run with its error', async () => {
    await deployment.http.call('POST', '/v1/runs', {
      body: {
        runId: 'e2e-no-key',
        spec: { assistant: { model: 'anthropic:claude-sonnet-4-5' }, input: { prompt: 'x' } },
      },
    });
    const run = await waitForState('e2e-no-key', ['completed', 'failed']);
    expect(run.state).toBe('failed');
    expect(run.error.message.length).toBeGreaterThan(0);
    expect((await scrape()).get('agentq_runs_total{outcome="failed"}')).toBeGreaterThanOrEqual(1);
  });

  it('fires runs from a schedule', async () => {
    expect(
      (await deployment.http.call('PUT', '/v1/schedules/e2e-tick', { body: { everyMs: 300, spec: scripted('tick') } }))
        .status,
    ).toBe(200);
    const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    try {
      const fired = await eventually(
        async () => {
          const completed = await runs.getJobs(['completed']);
          const ticks = completed.filter((job) => job.repeatJobKey === 'e2e-tick' && job.returnvalue?.text === 'tick');
          return ticks.length >= 2 ? ticks : undefined;
        },
        30_000,
        'two scheduled runs to complete',
      );
      expect(fired.length).toBeGreaterThanOrEqual(2);
      const viaApi = await deployment.http.call('GET', `/v1/runs/${fired[0]?.id}`);
      expect(viaApi.body).toMatchObject({ state: 'completed', result: { text: 'tick' } });
    } finally {
      expect((await deployment.http.call('DELETE', '/v1/schedules/e2e-tick')).status).toBe(204);
      await runs.close();
    }
  });

  it('parks a run for approval, takes the decision over HTTP once, and finishes it', async () => {
    await deployment.http.call('POST', '/v1/runs', { body: { runId: 'e2e-demo', spec: demoSpec() } });
    const parked = await waitForState('e2e-demo', ['waiting-approval', 'completed', 'failed']);
    expect(parked.state).toBe('waiting-approval');
    expect(parked.pendingApprovals).toHaveLength(1);
    const listed = await deployment.http.call('GET', '/v1/approvals?runId=e2e-demo');
    expect(listed.body.approvals).toHaveLength(1);
    const approval = listed.body.approvals[0];
    expect(approval).toMatchObject({ runId: 'e2e-demo', toolName: 'mcp__everything__echo' });
    expect(approval.approvalId).toBe(parked.pendingApprovals[0].approvalId);

    expect(
      (await deployment.http.call('POST', '/v1/approvals/no-such-approval/decision', { body: { approved: true } }))
        .status,
    ).toBe(404);
    const decided = await deployment.http.call('POST', `/v1/approvals/${approval.approvalId}/decision`, {
      body: { approved: true, reason: 'fine' },
    });
    expect(decided).toMatchObject({
      status: 200,
      body: { decision: { approved: true, decidedBy: 'default', via: 'rest' } },
    });
    const again = await deployment.http.call('POST', `/v1/approvals/${approval.approvalId}/decision`, {
      body: { approved: false },
    });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_DECIDED');

    const finished = await waitForState('e2e-demo', ['completed', 'failed']);
    expect(finished.state).toBe('completed');
    const echo = finished.result.toolCalls.find(
      (call: { toolName: string }) => call.toolName === 'mcp__everything__echo',
    );
    expect(echo.approval).toMatchObject({ approved: true });
    expect(JSON.stringify(echo.output)).toContain('Hello from the agentq demo');
    expect((await deployment.http.call('GET', '/v1/approvals?runId=e2e-demo')).body.approvals).toEqual([]);

    const metrics = await scrape();
    expect(metrics.get('agentq_approvals_total{outcome="approved"}')).toBeGreaterThanOrEqual(1);
    expect(metrics.get('agentq_approval_wait_seconds_count')).toBeGreaterThanOrEqual(1);
    expect(metrics.get('agentq_catalog_age_seconds{server="everything"}')).toBeGreaterThanOrEqual(0);
    expect(metrics.get('agentq_catalog_tools{server="everything"}')).toBeGreaterThan(5);
    expect(metrics.get('agentq_catalog_state{server="everything",state="connected"}')).toBe(1);
    expect(metrics.get('agentq_tool_tokens_total{exposure="deferred"}')).toBeGreaterThan(0);
    const refreshes = [...metrics.entries()].filter(([name]) =>
      name.startsWith('agentq_catalog_refresh_total{server="everything"'),
    );
    expect(refreshes.reduce((sum, [, value]) => sum + value, 0)).toBeGreaterThanOrEqual(1);
  });

  it('cancels a parked run and takes its approvals out of the inbox', async () => {
    await deployment.http.call('POST', '/v1/runs', { body: { runId: 'e2e-cancel', spec: demoSpec() } });
    const parked = await waitForState('e2e-cancel', ['waiting-approval', 'completed', 'failed']);
    expect(parked.state).toBe('waiting-approval');
    const approvalId = parked.pendingApprovals[0].approvalId;
    const cancelled = await deployment.http.call('DELETE', '/v1/runs/e2e-cancel');
    expect(cancelled).toMatchObject({ status: 200, body: { previousState: 'waiting-approval' } });
    expect((await deployment.http.call('GET', '/v1/runs/e2e-cancel')).status).toBe(404);
    expect((await deployment.http.call('GET', '/v1/approvals?runId=e2e-cancel')).body.approvals).toEqual([]);
    const late = await deployment.http.call('POST', `/v1/approvals/${approvalId}/decision`, {
      body: { approved: true },
    });
    expect(late.status).toBe(409);
  });
});
