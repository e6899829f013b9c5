import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import type { RunningApi } from '@agentq/api';
import { runCli } from '@agentq/cli';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, TEST_TOKEN } from '../api/start-test-api.js';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startElicitationSuite, type ElicitationSuite } from '../mcp/elicitation-suite.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';
import { adminLogin } from './admin-helpers.js';

// What a person decides on is shown whole, and as it is: no key hidden past a cut, no terminal
// control sequence acted on, no bidi control reordering a file name.
// eslint-disable-next-line no-control-regex -- the assertions are about these characters
const HIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

/** `agentq <args>` in-process, through the same entry as the bin. */
async function agentq(ctx: TestContext, ...args: string[]) {
  const out: string[] = [];
  const code = await runCli(['node', 'agentq', ...args], {
    out: (text) => out.push(text),
    err: (text) => out.push(text),
    env: { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' },
  });
  return { code, output: out.join('\n') };
}

describe('a gated call shown to its approver', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let client: AgentqClient;
  let api: RunningApi;
  let folder: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-hidden-'));
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'fx',
        transport: fixtureStdioTransport({ counterFile: join(folder, 'counter.log') }),
        alwaysAsk: ['counter_increment'],
      },
    });
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    ({ api } = await startTestApi(ctx));
  }, 60_000);

  afterAll(async () => {
    await api?.close();
    await client?.close();
    await worker?.close();
    const approvals = new Queue(QUEUE_NAMES.approvals, { connection: ctx.redis, prefix: ctx.prefix });
    for (const each of [queue, approvals]) {
      await each?.obliterate({ force: true });
      await each?.close();
    }
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('the CLI and the inbox show every argument, hidden characters as escapes', async () => {
    const input = {
      note: 'weekly status for the team, harmless text',
      target: 'DELETE-EVERYTHING',
      path: 'notes/\u202Egnp.exe',
      title: 'x\u001b]0;pwned\u0007',
    };
    const { runId } = await client.enqueueRun({
      assistant: {
        model: 'scripted:test',
        mcpServers: ['fx'],
        script: [
          { toolCalls: [{ toolName: 'mcp__fx__counterIncrement', input }] },
          { text: 'ok\u001b[3A\u001b[J  waiting for approval appr-x' },
        ],
      },
      input: { prompt: 'write a note' },
    });
    const pending = await eventually(async () => (await client.listPendingApprovals({ runId }))[0]);

    const shown = await agentq(ctx, 'approvals', 'show', pending.approvalId);
    expect(shown.code).toBe(0);
    expect(shown.output).toContain('"target": "DELETE-EVERYTHING"');
    expect(shown.output).toContain('"path": "notes/\\u202egnp.exe"');
    expect(shown.output).toContain('"title": "x\\u001b]0;pwned\\u0007"');
    expect(shown.output).not.toMatch(HIDDEN);

    const listed = await agentq(ctx, 'approvals', 'list', '--run', runId);
    expect(listed.output).toContain('…');
    expect(listed.output).toContain('agentq approvals show <id>');
    expect(listed.output).not.toMatch(HIDDEN);

    const waiting = await agentq(ctx, 'status', runId);
    expect(waiting.output).toMatch(/ {4}arguments: \{"note":"weekly.*…/);
    expect(waiting.output).toContain(`approvals show ${pending.approvalId}`);

    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const inbox = await (await fetch(`${api.url}/admin/approvals`, { headers: { cookie } })).text();
    expect(inbox).toContain('DELETE-EVERYTHING');
    expect(inbox).toContain('notes/\\u202egnp.exe');
    expect(inbox).not.toContain('\u202E');
    const runPage = await (await fetch(`${api.url}/admin/runs/${runId}`, { headers: { cookie } })).text();
    expect(runPage).toContain('notes/\\u202egnp.exe');
    expect(runPage).not.toMatch(HIDDEN);

    await client.decide({ approvalId: pending.approvalId, approved: true, decidedBy: 'tester', via: 'cli' });
    expect((await waitForJob(queue, runId)).state).toBe('completed');
    const finished = await agentq(ctx, 'status', runId);
    expect(finished.output).toContain('ok\\u001b[3A\\u001b[J  waiting for approval appr-x');
    expect(finished.output).not.toMatch(HIDDEN);
  }, 60_000);
});

describe("an MCP server's question shown to the operator", () => {
  let suite: ElicitationSuite;
  beforeAll(async () => {
    suite = await startElicitationSuite();
  }, 60_000);
  afterAll(async () => {
    await suite?.close();
  });

  it('`elicitations show|list` and `status` print its control sequences as escapes', async () => {
    const client = createAgentqClient({ redisUrl: suite.ctx.redisUrl, prefix: suite.ctx.prefix });
    try {
      const evil = 'web\u001b[1A\u001b[2K\rElicitation e-1 · server github\u001b]0;pwned\u0007\u202e';
      const { runId } = await client.enqueueRun({
        assistant: {
          model: 'scripted:test',
          mcpServers: ['deploy'],
          script: [
            { toolCalls: [{ toolName: 'mcp__deploy__deployService', input: { service: evil } }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'deploy' },
      });
      const run = await eventually(async () => {
        const seen = await client.getRun(runId);
        return seen.pendingElicitations.length > 0 ? seen : undefined;
      });
      const id = run.pendingElicitations[0]?.elicitationId as string;
      for (const args of [
        ['elicitations', 'show', id],
        ['elicitations', 'list'],
        ['status', runId],
      ]) {
        const printed = await agentq(suite.ctx, ...args);
        expect(printed.code, args.join(' ')).toBe(0);
        expect(printed.output, args.join(' ')).toContain('web\\u001b[1A');
        expect(printed.output, args.join(' ')).not.toMatch(HIDDEN);
      }
    } finally {
      await client.close();
    }
  }, 60_000);
});
