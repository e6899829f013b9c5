import { readFile } from 'node:fs/promises';
import { runCli } from '@agentq/cli';
import type { RunningApi } from '@agentq/api';
import { runResultSchema } from '@agentq/shared';
import { registerElicitation } from '@agentq/store';
import { Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_TOKEN, type ApiCaller } from '../api/start-test-api.js';
import { adminLogin } from '../security/admin-helpers.js';
import type { TestContext } from '../helpers/test-context.js';
import { enqueueRun, eventually, waitForJob } from '../worker/helpers/worker-harness.js';
import { startElicitationSuite, type ElicitationSuite } from './elicitation-suite.js';

// Elicitation policy `ask`: a server's question during a run's tool call parks the run; the answer
// given through REST is validated against the requested schema, recorded once, and reaches the
// server when the call is made again.
describe('elicitation policy ask', () => {
  let ctx: TestContext;
  let queue: Queue;
  let api: RunningApi;
  let http: ApiCaller;
  let elicitLog: string;

  let suite: ElicitationSuite;

  beforeAll(async () => {
    suite = await startElicitationSuite();
    ({ ctx, queue, api, http, elicitLog } = suite);
  });

  afterAll(async () => {
    await suite?.close();
  });

  async function answers(): Promise<Array<{ service: string; action: string; content: unknown }>> {
    const text = await readFile(elicitLog, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { service: string; action: string; content: unknown });
  }

  async function parkedElicitation(runId: string) {
    return await eventually(async () => {
      const listed = await http.call('GET', `/v1/elicitations?runId=${runId}`);
      const job = await Job.fromId(queue, runId);
      const state = await job?.getState();
      return listed.body?.elicitations?.length === 1 && state === 'waiting-children'
        ? listed.body.elicitations[0]
        : undefined;
    });
  }

  function deploySpec(service: string) {
    return {
      assistant: {
        model: 'scripted:test',
        mcpServers: ['deploy'],
        script: [{ toolCalls: [{ toolName: 'mcp__deploy__deployService', input: { service } }] }, { text: 'done' }],
      },
      input: { prompt: `deploy ${service}` },
    };
  }

  it('parks the run on the question, refuses an answer that breaks the form, and resumes with a valid one', async () => {
    await enqueueRun(queue, { runId: 'elicit-1', spec: deploySpec('billing') });
    const pending = await parkedElicitation('elicit-1');
    expect(pending.request.message).toBe('Where should billing be deployed?');
    expect(Object.keys(pending.request.requestedSchema.properties)).toEqual(['environment', 'replicas']);
    expect(pending.request.serverId).toBe('deploy');
    const elicitationId: string = pending.request.elicitationId;
    // The server was told `cancel` while the run parked; nothing it got was an answer.
    expect((await answers()).map((answer) => answer.action)).toEqual(['cancel']);

    const wrongValue = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, {
      body: { action: 'accept', content: { environment: 'moon' } },
    });
    expect(wrongValue.status).toBe(400);
    expect(wrongValue.body.error.code).toBe('VALIDATION');
    expect(wrongValue.body.error.field).toBe('content.environment');
    const missing = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, {
      body: { action: 'accept', content: { replicas: 2 } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.field).toBe('content.environment');
    const unauthenticated = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, {
      body: { action: 'decline' },
      token: null,
    });
    expect(unauthenticated.status).toBe(401);

    const accepted = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, {
      body: { action: 'accept', content: { environment: 'staging', replicas: 3 } },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.body.answer.via).toBe('rest');

    const finished = await waitForJob(queue, 'elicit-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]?.isError).toBe(false);
    expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('deploy accept');
    expect((await answers()).at(-1)).toEqual({
      service: 'billing',
      action: 'accept',
      content: { environment: 'staging', replicas: 3 },
    });

    // Single use: a second answer is refused, and the first one stands.
    const again = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, { body: { action: 'decline' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('ALREADY_DECIDED');
    const record = await http.call('GET', `/v1/elicitations/${elicitationId}`);
    expect(record.body.response.response).toEqual({
      action: 'accept',
      content: { environment: 'staging', replicas: 3 },
    });
    expect(record.body.outcome).toBe('answer');
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

  it('shows the form in the CLI, refuses a bad answer there, and passes a decline on to the server', async () => {
    await enqueueRun(queue, { runId: 'elicit-2', spec: deploySpec('search') });
    const pending = await parkedElicitation('elicit-2');
    const elicitationId: string = pending.request.elicitationId;
    const shown = await agentq(['elicitations', 'show', elicitationId]);
    expect(shown.code).toBe(0);
    const text = shown.lines.join('\n');
    expect(text).toContain('Where should search be deployed?');
    expect(text).toMatch(/environment\s+string\s+yes\s+staging, production/);
    const bad = await agentq(['elicitations', 'answer', elicitationId, '--accept', '--set', 'replicas=20']);
    expect(bad.code).not.toBe(0);
    expect(bad.lines.join('\n')).toContain('VALIDATION');

    const declined = await agentq(['elicitations', 'answer', elicitationId, '--decline']);
    expect(declined.code).toBe(0);
    const finished = await waitForJob(queue, 'elicit-2');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('deploy decline');
    expect((await answers()).filter((answer) => answer.service === 'search').map((answer) => answer.action)).toEqual([
      'cancel',
      'decline',
    ]);
    const record = await http.call('GET', `/v1/elicitations/${elicitationId}`);
    expect(record.body.response.via).toBe('cli');
  });

  it('shows the form in the inbox, whose answer is recorded as the logged-in token', async () => {
    await enqueueRun(queue, { runId: 'elicit-3', spec: deploySpec('mail') });
    const pending = await parkedElicitation('elicit-3');
    const elicitationId: string = pending.request.elicitationId;
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const inbox = await (await fetch(`${api.url}/admin/approvals`, { headers: { cookie } })).text();
    expect(inbox).toContain(`action="/admin/elicitations/${elicitationId}/answer"`);
    expect(inbox).toContain('Where should mail be deployed?');
    expect(inbox).toContain('<option value="production">');
    const csrf = /name="_csrf" value="([^"]+)"/.exec(inbox)?.[1] ?? '';
    const post = (fields: Record<string, string>) =>
      fetch(`${api.url}/admin/elicitations/${elicitationId}/answer`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
        redirect: 'manual',
      });
    const missing = await post({ action: 'accept', 'field.replicas': '2' });
    expect(decodeURIComponent(missing.headers.get('location') ?? '')).toContain('VALIDATION');
    const accepted = await post({ action: 'accept', 'field.environment': 'production', 'field.replicas': '' });
    expect(decodeURIComponent(accepted.headers.get('location') ?? '')).toContain('notice=');
    expect((await waitForJob(queue, 'elicit-3')).state).toBe('completed');
    expect((await answers()).at(-1)).toEqual({
      service: 'mail',
      action: 'accept',
      content: { environment: 'production' },
    });
    const record = await http.call('GET', `/v1/elicitations/${elicitationId}`);
    expect(record.body.response.via).toBe('inbox');
  });

  it('cancels a question nobody answers in time, and refuses a late answer', async () => {
    const spec = { ...deploySpec('cron'), approval: { timeoutMs: 4_000 } };
    await enqueueRun(queue, { runId: 'elicit-4', spec });
    const pending = await parkedElicitation('elicit-4');
    const finished = await waitForJob(queue, 'elicit-4');
    expect(finished.state).toBe('completed');
    expect(JSON.stringify(runResultSchema.parse(finished.returnvalue).toolCalls[0]?.output)).toContain('deploy cancel');
    const late = await http.call('POST', `/v1/elicitations/${pending.request.elicitationId}/answer`, {
      body: { action: 'decline' },
    });
    expect(late.status).toBe(410);
    expect(late.body.error.code).toBe('EXPIRED');
    const record = await http.call('GET', `/v1/elicitations/${pending.request.elicitationId}`);
    expect(record.body.outcome).toBe('expired');
  });

  it('refuses the answer to a question of a cancelled run, and shows the question closed', async () => {
    await enqueueRun(queue, { runId: 'elicit-5', spec: deploySpec('queue') });
    const pending = await parkedElicitation('elicit-5');
    const elicitationId: string = pending.request.elicitationId;
    expect((await http.call('DELETE', '/v1/runs/elicit-5')).status).toBe(200);

    const late = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, {
      body: { action: 'accept', content: { environment: 'staging' } },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('CONFLICT');
    expect(late.body.error.message).toContain('cancelled');
    const record = await http.call('GET', `/v1/elicitations/${elicitationId}`);
    expect(record.body.outcome).toBe('closed');
    expect(record.body.response).toMatchObject({ response: { action: 'cancel' }, answeredBy: 'agentq:run-cancelled' });
    const listed = await http.call('GET', '/v1/elicitations');
    expect(
      listed.body.elicitations.map((entry: { request: { elicitationId: string } }) => entry.request.elicitationId),
    ).not.toContain(elicitationId);

    const cli = await agentq(['elicitations', 'answer', elicitationId, '--decline']);
    expect(cli.code).toBe(4);
    expect(cli.lines.join('\n')).toContain('CONFLICT');
    const shown = await agentq(['elicitations', 'show', elicitationId]);
    expect(shown.lines.join('\n')).toContain('Closed without an answer: its run cancelled');
  });

  it('closes the question of a cancelled run when it is read, before anyone answers', async () => {
    await enqueueRun(queue, { runId: 'elicit-6', spec: deploySpec('cache') });
    const pending = await parkedElicitation('elicit-6');
    const elicitationId: string = pending.request.elicitationId;
    expect((await http.call('DELETE', '/v1/runs/elicit-6')).status).toBe(200);
    const listed = await http.call('GET', '/v1/elicitations?runId=elicit-6');
    expect(listed.body.elicitations).toEqual([]);
    const cliList = await agentq(['elicitations', 'list', '--json']);
    expect(cliList.lines.join('\n')).not.toContain(elicitationId);
    expect((await http.call('GET', `/v1/elicitations/${elicitationId}`)).body.outcome).toBe('closed');
    // Closed, not expired: its expiry is never settled by a job, and a replayed answer stays refused.
    const again = await http.call('POST', `/v1/elicitations/${elicitationId}/answer`, { body: { action: 'decline' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('refuses the answer to a question left over by a run that finished', async () => {
    await enqueueRun(queue, { runId: 'elicit-7', spec: deploySpec('logs') });
    const pending = await parkedElicitation('elicit-7');
    const first: string = pending.request.elicitationId;
    expect((await agentq(['elicitations', 'answer', first, '--decline'])).code).toBe(0);
    expect((await waitForJob(queue, 'elicit-7')).state).toBe('completed');
    // A question of the same run that was never answered: nothing resumes on it any more.
    const leftOver = { ...pending.request, elicitationId: `${first}-b`, toolCallId: 'call-left-over' };
    await registerElicitation({ redis: ctx.redis, prefix: ctx.prefix, request: leftOver });
    const listed = await http.call('GET', '/v1/elicitations?runId=elicit-7');
    expect(listed.body.elicitations).toEqual([]);
    const late = await http.call('POST', `/v1/elicitations/${leftOver.elicitationId}/answer`, {
      body: { action: 'decline' },
    });
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('CONFLICT');
    expect(late.body.error.message).toContain('completed');
    expect((await http.call('GET', `/v1/elicitations/${leftOver.elicitationId}`)).body.response.answeredBy).toBe(
      'agentq:run-completed',
    );
  });

  it('refuses a replayed CLI answer: the first one stands', async () => {
    await enqueueRun(queue, { runId: 'elicit-8', spec: deploySpec('dns') });
    const pending = await parkedElicitation('elicit-8');
    const elicitationId: string = pending.request.elicitationId;
    expect((await agentq(['elicitations', 'answer', elicitationId, '--decline'])).code).toBe(0);
    const replay = await agentq(['elicitations', 'answer', elicitationId, '--cancel']);
    expect(replay.code).toBe(4);
    expect(replay.lines.join('\n')).toContain('ALREADY_DECIDED');
    expect((await waitForJob(queue, 'elicit-8')).state).toBe('completed');
    expect((await answers()).filter((answer) => answer.service === 'dns').map((answer) => answer.action)).toEqual([
      'cancel',
      'decline',
    ]);
  });

  it('asks again for a later call with the same tool, arguments and question: an answer is for its own call', async () => {
    const call = { toolName: 'mcp__deploy__deployService', input: { service: 'payments' } };
    const spec = {
      assistant: {
        model: 'scripted:test',
        mcpServers: ['deploy'],
        script: [{ toolCalls: [call] }, { toolCalls: [call] }, { text: 'done' }],
      },
      input: { prompt: 'deploy payments twice' },
    };
    await enqueueRun(queue, { runId: 'elicit-9', spec });
    const first: string = (await parkedElicitation('elicit-9')).request.elicitationId;
    const accepted = await http.call('POST', `/v1/elicitations/${first}/answer`, {
      body: { action: 'accept', content: { environment: 'production' } },
    });
    expect(accepted.status).toBe(200);
    // The second step's call asks a person itself instead of reusing the first call's answer.
    const second = await parkedElicitation('elicit-9');
    expect(second.request.elicitationId).not.toBe(first);
    expect(second.request.toolCallId).not.toBe(
      (await http.call('GET', `/v1/elicitations/${first}`)).body.request.toolCallId,
    );
    expect((await agentq(['elicitations', 'answer', second.request.elicitationId, '--decline'])).code).toBe(0);
    const finished = await waitForJob(queue, 'elicit-9');
    expect(finished.state).toBe('completed');
    const outputs = runResultSchema.parse(finished.returnvalue).toolCalls.map((entry) => JSON.stringify(entry.output));
    expect(outputs).toHaveLength(2);
    expect(outputs[0]).toContain('deploy accept');
    expect(outputs[1]).toContain('deploy decline');
    expect((await answers()).filter((answer) => answer.service === 'payments').map((answer) => answer.action)).toEqual([
      'cancel',
      'accept',
      'cancel',
      'decline',
    ]);
  });

  it('refuses an unknown elicitation id', async () => {
    const unknown = await http.call('POST', '/v1/elicitations/elic-nope/answer', { body: { action: 'cancel' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});
