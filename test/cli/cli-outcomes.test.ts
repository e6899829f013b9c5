import type { AgentWorker } from '@agentq/agent-worker';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { runCli } from '@agentq/cli';
import { EXIT_CODES, NonRetryableError, QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { eventually, startTestWorker } from '../worker/helpers/worker-harness.js';

// `busy` has a worker; nothing consumes `idle`, so its runs stay queued until cancelled.
let busy: TestContext;
let idle: TestContext;
let worker: AgentWorker;
let idleClient: AgentqClient;

beforeAll(async () => {
  busy = createTestContext();
  idle = createTestContext();
  // Every model is refused: each run fails at once, whatever keys this machine has.
  worker = await startTestWorker({
    redisUrl: busy.redisUrl,
    prefix: busy.prefix,
    models: {
      resolve: () => {
        throw new NonRetryableError({ code: 'PROVIDER_KEY_MISSING', message: 'no key in this test' });
      },
    },
  });
  idleClient = createAgentqClient({ redisUrl: idle.redisUrl, prefix: idle.prefix });
}, 120_000);
afterAll(async () => {
  await worker?.close();
  await idleClient?.close();
  for (const ctx of [busy, idle]) {
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
    await ctx.close();
  }
}, 120_000);

async function agentq(ctx: TestContext, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['node', 'agentq', ...args], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** `agentq run --wait` of a run with this id (no worker ever takes it on the idle prefix). */
const runOn = (runId: string) => ['run', 'hi', '-m', 'openai:gpt-4o-mini', '--run-id', runId, '--wait'];

describe('agentq exit codes agree with and without --json', () => {
  it('a failed run exits 1 from `status` and `run --wait`, and --json still prints the run', async () => {
    const waited = await agentq(busy, 'run', 'x', '-m', 'openai:gpt-4o-mini', '--run-id', 'doomed', '--wait', '--json');
    expect(waited.code, waited.stderr).toBe(EXIT_CODES.failed);
    expect(JSON.parse(waited.stdout)).toMatchObject({ runId: 'doomed', state: 'failed' });
    expect(waited.stderr).toBe('error [RUN_FAILED]: PROVIDER_KEY_MISSING: no key in this test');

    const text = await agentq(busy, 'status', 'doomed');
    const json = await agentq(busy, 'status', 'doomed', '--json');
    expect(text.code).toBe(EXIT_CODES.failed);
    expect(json.code).toBe(EXIT_CODES.failed);
    expect(JSON.parse(json.stdout)).toMatchObject({ runId: 'doomed', state: 'failed' });
  }, 120_000);

  it('`run --wait --json` that times out prints the run as it stands, and exits 6', async () => {
    const timedOut = await agentq(idle, ...runOn('slow'), '--json', '--timeout', '300');
    expect(timedOut.code, timedOut.stderr).toBe(EXIT_CODES.timeout);
    expect(JSON.parse(timedOut.stdout)).toMatchObject({ runId: 'slow', state: 'waiting' });
    expect(timedOut.stderr).toMatch(/^error \[TIMEOUT\]: /);
  });
});

describe('agentq run --wait on a run cancelled meanwhile', () => {
  it('says the run was cancelled or removed, not that this may be the wrong Redis', async () => {
    const waiting = agentq(idle, ...runOn('to-cancel'), '--timeout', '60000');
    await eventually(async () => ((await idleClient.getRun('to-cancel').catch(() => undefined)) ? true : undefined));
    await idleClient.cancelRun('to-cancel');
    const done = await waiting;
    expect(done.code).toBe(EXIT_CODES.notFound);
    expect(done.stderr).toBe('error [NOT_FOUND]: Run to-cancel was cancelled or removed while waiting for it');
  });
});

describe('agentq command groups pass their options to the subcommand named', () => {
  it('`approvals --json list`, `elicitations --json list` and `servers --json list` print JSON', async () => {
    for (const group of ['approvals', 'elicitations', 'servers']) {
      const listed = await agentq(idle, group, '--json', 'list');
      expect(listed.code, group).toBe(EXIT_CODES.ok);
      expect(JSON.parse(listed.stdout), group).toEqual([]);
    }
  });
});

describe('agentq servers', () => {
  it('`servers add --wait` that times out prints one coded line and exits 6', async () => {
    const slow = await agentq(idle, 'servers', 'add', 'slow1', '--command', 'node', '--wait', '--timeout', '300');
    expect(slow.code).toBe(EXIT_CODES.timeout);
    expect(slow.stderr).toBe('error [TIMEOUT]: MCP server slow1 was not listed within 300 ms (state: never-warmed)');
  });

  it('`servers authorize|deauthorize` name an unknown server, or one without OAuth, before the missing key', async () => {
    for (const verb of ['authorize', 'deauthorize']) {
      const unknown = await agentq(idle, 'servers', verb, 'nope');
      expect(unknown.code, verb).toBe(EXIT_CODES.notFound);
      expect(unknown.stderr, verb).toMatch(/^error \[NOT_FOUND\]: No MCP server nope/);
      const plain = await agentq(idle, 'servers', verb, 'slow1');
      expect(plain.code, verb).toBe(EXIT_CODES.usage);
      expect(plain.stderr, verb).toMatch(/^error \[VALIDATION\]: MCP server slow1 has no auth block/);
    }
  });

  it('`elicitations answer --decline --set` is refused', async () => {
    const refused = await agentq(idle, 'elicitations', 'answer', 'elic-x', '--decline', '--set', 'a=b');
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr).toMatch(/^error \[USAGE\]: --set gives the fields of an accepted answer/);
  });
});
