import { createAgentqClient, type AgentqClient } from '@agentq/client';
import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES, runIncarnationOf } from '@agentq/shared';
import { keyNames, runStateKeys } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin } from '../security/admin-helpers.js';
import { startTestApi, TEST_TOKEN, type ApiCaller } from './start-test-api.js';

const EARLIER = 'earlier-incarnation-0123456789';

// A run id can be used again once its job is gone. What the earlier run left in the run's keys
// (a checkpoint, tool-result journal entries) carries that run's incarnation; the views of the
// run now under the id must not show any of it as this run's.
describe('run views ignore state an earlier run under the same id left behind', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await client?.close();
    await api?.close();
    await ctx?.close();
  });

  it('timeline, REST and run page show only journal entries and checkpoint of the current incarnation', async () => {
    // No worker runs here: the run stays queued while its keys hold what we write.
    const { runId } = await client.enqueueRun({ assistant: { model: 'scripted:demo' }, input: { prompt: 'now' } });
    const job = await queue.getJob(runId);
    const incarnation = runIncarnationOf(job as NonNullable<typeof job>);
    expect(incarnation).not.toBe(EARLIER);
    const [checkpointKey, journalKey] = runStateKeys(keyNames(ctx.prefix), runId);
    await ctx.redis.hset(journalKey, {
      'call-earlier': JSON.stringify({
        ok: true,
        output: 'earlier output',
        toolName: 'earlier_tool',
        incarnation: EARLIER,
        startedAt: 1,
        finishedAt: 2,
      }),
      'call-now': JSON.stringify({ claimedBy: 'worker-1', toolName: 'current_tool', incarnation, startedAt: 3 }),
    });
    await ctx.redis.set(
      checkpointKey,
      JSON.stringify({
        runId,
        incarnation: EARLIER,
        messages: [],
        allowedNames: [],
        inspectedNames: [],
        step: 1,
        steps: [
          {
            step: 0,
            text: 'earlier text',
            finishReason: 'tool-calls',
            usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          },
        ],
        toolCalls: [{ toolCallId: 'call-earlier-gated', toolName: 'earlier_gated', input: {}, step: 0 }],
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        catalogVersion: {},
        pendingApprovals: [
          {
            approvalId: 'earlier-approval',
            toolCallId: 'call-earlier-gated',
            toolName: 'earlier_gated',
            argsDigest: 'd',
            schemaDigest: 'd',
          },
        ],
        status: 'waiting-approval',
        updatedAt: 1,
      }),
    );

    const timeline = await client.getRunTimeline(runId);
    expect(timeline.inProgress.map((call) => call.toolCallId)).toEqual(['call-now']);
    expect(timeline.steps).toEqual([]);

    const rest = await http.call('GET', `/v1/runs/${runId}`);
    expect(rest.status).toBe(200);
    // The earlier run's parked checkpoint does not make this queued run look parked.
    expect(rest.body.state).toBe('waiting');
    expect(rest.body.pendingApprovals).toEqual([]);

    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const page = await fetch(`${api.url}/admin/runs/${runId}`, { headers: { cookie }, redirect: 'manual' });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('current_tool');
    expect(html).not.toContain('earlier_tool');
    expect(html).not.toContain('earlier_gated');
  }, 60_000);
});
