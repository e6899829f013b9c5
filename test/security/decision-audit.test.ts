import { userInfo } from 'node:os';
import type { AgentWorker } from '@agentq/agent-worker';
import type { RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { QUEUE_NAMES, silentLogger } from '@agentq/shared';
import { readApprovalRecord, registerApprovalRequests, type ApprovalRecord } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { runAgentq } from '../cli/run-agentq.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin, inboxCsrf } from './admin-helpers.js';

const APPROVER = 'approver-token-0123456789';

// Hole 7 and Build 8: decidedBy was whatever the caller said. Now it is the authenticated token's
// name (or the CLI's OS user), and each record says through which path the decision came.
describe('decision audit trail: who, when and how, never chosen by the caller', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;
  let client: AgentqClient;
  let worker: AgentWorker | undefined;
  let decisions: Queue;

  const register = async (approvalId: string) => {
    const now = Date.now();
    await registerApprovalRequests({
      redis: ctx.redis,
      prefix: ctx.prefix,
      requests: [
        {
          approvalId,
          runId: `run-${approvalId}`,
          toolCallId: `call-${approvalId}`,
          toolName: 'mcp__fx__delete',
          input: { id: approvalId },
          argsDigest: 'a',
          schemaDigest: 's',
          requestedAt: now,
          expiresAt: now + 3_600_000,
        },
      ],
    });
  };
  const recordOf = (approvalId: string) => readApprovalRecord({ redis: ctx.redis, prefix: ctx.prefix, approvalId });

  beforeAll(async () => {
    ctx = createTestContext();
    const config = testConfig(ctx, { AGENTQ_API_TOKENS: `alice:approvals=${APPROVER}` });
    ({ api, http } = await startTestApi(ctx, config));
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    decisions = new Queue(QUEUE_NAMES.decisions, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await worker?.close();
    await client?.close();
    await api?.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await decisions?.close();
    await ctx?.close();
  });

  it('refuses decidedBy forged in a REST body, and records the token name with path rest', async () => {
    await register('rest-1');
    const forged = await http.call('POST', '/v1/approvals/rest-1/decision', {
      token: APPROVER,
      body: { approved: true, decidedBy: 'mallory' },
    });
    expect(forged.status).toBe(400);
    expect(forged.body.error.code).toBe('VALIDATION');
    expect((await recordOf('rest-1'))?.decision).toBeNull();

    const before = Date.now();
    const decided = await http.call('POST', '/v1/approvals/rest-1/decision', {
      token: APPROVER,
      body: { approved: true, reason: 'looks fine' },
    });
    expect(decided.status).toBe(200);
    expect(decided.body.decision).toMatchObject({ decidedBy: 'alice', via: 'rest', reason: 'looks fine' });
    const record = await recordOf('rest-1');
    expect(record?.decision).toMatchObject({ approved: true, decidedBy: 'alice', via: 'rest' });
    expect(record?.decision?.decidedAt).toBeGreaterThanOrEqual(before);

    // The audit view shows it, over REST and through the client.
    const shown = await http.call('GET', '/v1/approvals/rest-1', { token: APPROVER });
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ decision: { decidedBy: 'alice', via: 'rest' }, outcome: 'decision' });
    expect((await client.getApproval('rest-1')).decision).toMatchObject({ decidedBy: 'alice', via: 'rest' });
    expect((await http.call('GET', '/v1/approvals/nope', { token: APPROVER })).status).toBe(404);
  });

  it('records inbox decisions as the token that logged in, whatever the form says', async () => {
    await register('inbox-1');
    const cookie = await adminLogin(http.url, APPROVER);
    const csrf = await inboxCsrf(http.url, cookie);
    const response = await fetch(`${http.url}/admin/approvals/inbox-1/decision`, {
      method: 'POST',
      headers: { cookie, origin: http.url, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ decision: 'deny', reason: 'no', _csrf: csrf, decidedBy: 'mallory' }).toString(),
      redirect: 'manual',
    });
    await response.arrayBuffer();
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toMatch(/notice=/);
    expect((await recordOf('inbox-1'))?.decision).toMatchObject({ approved: false, decidedBy: 'alice', via: 'inbox' });
  });

  it('records the CLI as the OS user with path cli, and has no option to pick another name', async () => {
    await register('cli-1');
    const env = { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' };
    const forged = await runAgentq(['approvals', 'approve', 'cli-1', '--by', 'mallory'], env);
    expect(forged.code).not.toBe(0);
    expect((await recordOf('cli-1'))?.decision).toBeNull();
    const approved = await runAgentq(['approvals', 'approve', 'cli-1', '--reason', 'ok'], env);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await recordOf('cli-1'))?.decision).toMatchObject({
      approved: true,
      decidedBy: userInfo().username,
      via: 'cli',
    });
    const shown = await runAgentq(['approvals', 'show', 'cli-1', '--json'], env);
    expect(shown.code, shown.stderr).toBe(0);
    expect((JSON.parse(shown.stdout) as ApprovalRecord).decision).toMatchObject({ via: 'cli' });
  });

  it('records client decisions with path client, and decisions-queue jobs with path queue whatever they claim', async () => {
    await register('client-1');
    await client.decide({ approvalId: 'client-1', approved: true, decidedBy: 'billing-service' });
    expect((await recordOf('client-1'))?.decision).toMatchObject({ decidedBy: 'billing-service', via: 'client' });

    await register('queue-1');
    const { startAgentWorker } = await import('@agentq/agent-worker');
    worker = await startAgentWorker({ config: testConfig(ctx), logger: silentLogger() });
    await decisions.add('decision', { approvalId: 'queue-1', approved: true, decidedBy: 'ops-bot', via: 'inbox' });
    const decision = await eventually(
      async () => (await recordOf('queue-1'))?.decision ?? undefined,
      30_000,
      'queued decision',
    );
    expect(decision).toMatchObject({ decidedBy: 'ops-bot', via: 'queue' });
  });
});
