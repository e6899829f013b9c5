import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { runCli } from '@agentq/cli';
import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES, runIncarnationOf, runSpecSchema } from '@agentq/shared';
import { keyNames, registerApprovalRequests, registerElicitation, runStateKeys } from '@agentq/store';
import { FlowProducer, Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, type ApiCaller } from '../api/start-test-api.js';
import { adminLogin } from '../security/admin-helpers.js';
import type { TestContext } from '../helpers/test-context.js';
import { enqueueRun, eventually, waitForJob } from '../worker/helpers/worker-harness.js';
import { startElicitationSuite, type ElicitationSuite } from './elicitation-suite.js';

// A run parked on a server's question (elicitation policy `ask`) is reported as waiting for input,
// with the question and its id, everywhere an operator looks: REST, `agentq status`, the run page.
// Approvals keep `waiting-approval`. Both are read from the run's records.
describe('a run waiting on an elicitation', () => {
  let ctx: TestContext;
  let queue: Queue;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;
  let flows: FlowProducer;

  let suite: ElicitationSuite;

  beforeAll(async () => {
    suite = await startElicitationSuite();
    ({ ctx, queue, api, http } = suite);
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    flows = new FlowProducer({ connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await flows?.close();
    await client?.close();
    await suite?.close();
  });

  async function agentq(args: string[]): Promise<{ code: number; lines: string[] }> {
    const lines: string[] = [];
    const code = await runCli(['node', 'agentq', ...args], {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      env: { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' },
    });
    return { code, lines };
  }

  it('reports waiting-input with the question in REST, agentq status and the run page, then completes', async () => {
    await enqueueRun(queue, {
      runId: 'asks-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['deploy'],
          script: [
            { toolCalls: [{ toolName: 'mcp__deploy__deployService', input: { service: 'billing' } }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'deploy billing' },
      },
    });
    const parked = await eventually(async () => {
      const response = await http.call('GET', '/v1/runs/asks-1');
      return response.body?.state === 'waiting-input' && response.body.pendingElicitations.length === 1
        ? response.body
        : undefined;
    });
    expect(await (await Job.fromId(queue, 'asks-1'))?.getState()).toBe('waiting-children');
    expect(parked.pendingApprovals).toEqual([]);
    const listed = await http.call('GET', '/v1/elicitations?runId=asks-1');
    const elicitationId: string = listed.body.elicitations[0].request.elicitationId;
    expect(parked.pendingElicitations).toEqual([
      {
        elicitationId,
        toolCallId: listed.body.elicitations[0].request.toolCallId,
        toolName: 'mcp__deploy__deployService',
        serverId: 'deploy',
        message: 'Where should billing be deployed?',
        requestedAt: expect.any(Number),
        expiresAt: listed.body.elicitations[0].request.expiresAt,
      },
    ]);

    // The run list (the client's, which the run pages use) tells it apart too, filtered or not: the
    // `waiting-approval` filter selects every parked run, and each run's state says which it waits for.
    for (const state of [undefined, 'waiting-approval'] as const) {
      const { runs } = await client.listRuns({ state });
      expect(runs.find((run) => run.runId === 'asks-1')?.state).toBe('waiting-input');
    }
    const listPage = await (
      await fetch(`${api.url}/admin/runs`, { headers: { cookie: await adminLogin(api.url, TEST_TOKEN) } })
    ).text();
    expect(listPage).toContain('waiting-input');

    const status = await agentq(['status', 'asks-1']);
    expect(status.code).toBe(0);
    expect(status.lines[0]).toBe('run asks-1: waiting-input');
    const text = status.lines.join('\n');
    expect(text).toContain(`waiting for an answer to ${elicitationId} (deploy, mcp__deploy__deployService)`);
    expect(text).toContain('Where should billing be deployed?');
    expect(text).toContain(`agentq elicitations answer ${elicitationId}`);
    expect(text).not.toContain('waiting for approval');

    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const page = await (await fetch(`${api.url}/admin/runs/asks-1`, { headers: { cookie } })).text();
    expect(page).toContain('id="run-state">waiting-input<');
    expect(page).toContain(`data-elicitation-id="${elicitationId}"`);
    expect(page).toContain('Where should billing be deployed?');

    const answered = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, {
      body: { action: 'accept', content: { environment: 'staging' } },
    });
    expect(answered.status).toBe(200);
    expect((await waitForJob(queue, 'asks-1')).state).toBe('completed');
    const done = await client.getRun('asks-1');
    expect(done.state).toBe('completed');
    expect(done.pendingElicitations).toEqual([]);
  });

  /** A run job parked (waiting-children) on a child nothing processes, with its incarnation. */
  async function parkedRun(runId: string): Promise<string> {
    const spec = runSpecSchema.parse({ assistant: { model: 'scripted:demo' }, input: { prompt: 'parked' } });
    await flows.add({
      name: 'run',
      queueName: QUEUE_NAMES.agentRuns,
      data: spec,
      opts: { jobId: runId },
      children: [{ name: 'hold', queueName: 'test-hold', data: {}, opts: { jobId: `${runId}-hold` } }],
    });
    const job = await Job.fromId(queue, runId);
    expect(await job?.getState()).toBe('waiting-children');
    return runIncarnationOf(job as Job);
  }

  async function ask(options: { runId: string; incarnation: string; elicitationId: string; expiresAt?: number }) {
    await registerElicitation({
      redis: ctx.redis,
      prefix: ctx.prefix,
      request: {
        elicitationId: options.elicitationId,
        runId: options.runId,
        incarnation: options.incarnation,
        toolCallId: `call-${options.elicitationId}`,
        toolName: 'mcp__deploy__deployService',
        serverId: 'deploy',
        argsDigest: 'a',
        digest: 'd',
        message: `question ${options.elicitationId}`,
        requestedSchema: { type: 'object', properties: {} },
        requestedAt: Date.now(),
        expiresAt: options.expiresAt ?? Date.now() + 600_000,
      },
    });
  }

  it('lists only the run incarnation’s unanswered, unexpired questions', async () => {
    const incarnation = await parkedRun('asks-2');
    await ask({ runId: 'asks-2', incarnation, elicitationId: 'elic-now' });
    await ask({ runId: 'asks-2', incarnation: 'earlier-incarnation', elicitationId: 'elic-earlier' });
    await ask({ runId: 'asks-2', incarnation, elicitationId: 'elic-expired', expiresAt: Date.now() - 1 });
    const run = await client.getRun('asks-2');
    expect(run.state).toBe('waiting-input');
    expect(run.pendingElicitations.map((question) => question.elicitationId)).toEqual(['elic-now']);
    expect(await client.cancelRun('asks-2')).toEqual({ runId: 'asks-2', previousState: 'waiting-input' });
  });

  it('stays waiting-approval while the checkpoint lists approvals, and shows the question too', async () => {
    const incarnation = await parkedRun('asks-3');
    await ask({ runId: 'asks-3', incarnation, elicitationId: 'elic-both' });
    const now = Date.now();
    await registerApprovalRequests({
      redis: ctx.redis,
      prefix: ctx.prefix,
      requests: [
        {
          approvalId: 'appr-both',
          runId: 'asks-3',
          incarnation,
          toolCallId: 'call-gated',
          toolName: 'mcp__deploy__deployService',
          input: { service: 'x' },
          argsDigest: 'a',
          schemaDigest: 's',
          requestedAt: now,
          expiresAt: now + 600_000,
        },
      ],
    });
    const [checkpointKey] = runStateKeys(keyNames(ctx.prefix), 'asks-3');
    await ctx.redis.set(
      checkpointKey,
      JSON.stringify({
        runId: 'asks-3',
        incarnation,
        messages: [],
        allowedNames: [],
        inspectedNames: [],
        step: 1,
        steps: [],
        toolCalls: [],
        usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
        catalogVersion: {},
        pendingApprovals: [
          {
            approvalId: 'appr-both',
            toolCallId: 'call-gated',
            toolName: 'mcp__deploy__deployService',
            argsDigest: 'a',
            schemaDigest: 's',
          },
        ],
        status: 'waiting-approval',
        updatedAt: now,
      }),
    );
    const rest = await http.call('GET', '/v1/runs/asks-3');
    expect(rest.status).toBe(200);
    expect(rest.body.state).toBe('waiting-approval');
    expect(rest.body.pendingApprovals.map((approval: { approvalId: string }) => approval.approvalId)).toEqual([
      'appr-both',
    ]);
    expect(rest.body.pendingElicitations.map((question: { elicitationId: string }) => question.elicitationId)).toEqual([
      'elic-both',
    ]);
  });
});
