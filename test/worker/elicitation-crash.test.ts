import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { runResultSchema } from '@agentq/shared';
import { Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import {
  enqueueRun,
  eventually,
  runsQueue,
  spawnWorkerProcess,
  waitForJob,
  type WorkerProcess,
} from './helpers/worker-harness.js';

// Elicitation policy `ask` when the worker dies with SIGKILL: at either end of the call that asked,
// the run neither loses the question nor sends the answered call twice.
describe('an elicitation across a worker killed with SIGKILL', () => {
  let ctx: TestContext;
  let queue: Queue;
  let client: AgentqClient;
  let folder: string;
  let elicitLog: string;
  let faultFile: string;
  const processes: WorkerProcess[] = [];

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-elicit-crash-'));
    elicitLog = join(folder, 'elicit.log');
    faultFile = join(folder, 'faults');
    // With `hold-call-answers` in the fault file the fixture holds its answer to every tools/call
    // until the flag goes: the kills land in that window, after the server acted on the call and
    // before the worker got the reply, however slow the machine.
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'deploy',
        elicitation: 'ask',
        transport: fixtureStdioTransport({ elicitLog, faultFile }),
        timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
      },
    });
    queue = runsQueue(ctx);
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
  });

  afterAll(async () => {
    await Promise.all(processes.map((worker) => worker.kill()));
    await client?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  async function spawnWorker(): Promise<WorkerProcess> {
    const worker = await spawnWorkerProcess({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    processes.push(worker);
    return worker;
  }

  /** What `deploy_service` received, one entry per time the server ran it, of `service` only. */
  async function serverLog(service: string): Promise<Array<{ action: string; content: unknown }>> {
    const text = await readFile(elicitLog, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { service: string; action: string; content: unknown })
      .filter((line) => line.service === service)
      .map(({ action, content }) => ({ action, content }));
  }

  async function enqueueDeploy(runId: string, service: string): Promise<void> {
    await enqueueRun(queue, {
      runId,
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['deploy'],
          script: [{ toolCalls: [{ toolName: 'mcp__deploy__deployService', input: { service } }] }, { text: 'done' }],
        },
        input: { prompt: `deploy ${service}` },
      },
    });
  }

  async function holdCallAnswers(on: boolean): Promise<void> {
    await writeFile(faultFile, on ? 'hold-call-answers' : '');
  }

  async function jobState(runId: string): Promise<string | undefined> {
    return await (await Job.fromId(queue, runId))?.getState();
  }

  async function pendingQuestion(runId: string) {
    return await eventually(async () => (await client.listPendingElicitations({ runId }))[0], 90_000);
  }

  it(
    'does not send the answered call again when the worker dies while the server runs it',
    { timeout: 240_000 },
    async () => {
      await holdCallAnswers(false);
      const first = await spawnWorker();
      await enqueueDeploy('elicit-crash-sent', 'web');
      const question = await pendingQuestion('elicit-crash-sent');
      // The run parks on the question; then the server's reply to the answered call is held.
      await eventually(
        async () => ((await jobState('elicit-crash-sent')) === 'waiting-children' ? true : undefined),
        90_000,
      );
      await holdCallAnswers(true);
      await client.answerElicitation({
        elicitationId: question.request.elicitationId,
        response: { action: 'accept', content: { environment: 'production' } },
        answeredBy: 'crash-test',
      });
      // The call went out again with the answer and the server acted on it; its reply is held.
      await eventually(
        async () => ((await serverLog('web')).some((line) => line.action === 'accept') ? true : undefined),
        90_000,
      );
      await first.kill();
      const second = await spawnWorker();

      const finished = await waitForJob(queue, 'elicit-crash-sent', 90_000);
      expect(finished.state).toBe('completed');
      // The server ran the deploy once with the answer: the next worker told the model the call may
      // or may not have taken effect instead of sending it a third time.
      expect(await serverLog('web')).toEqual([
        { action: 'cancel', content: null },
        { action: 'accept', content: { environment: 'production' } },
      ]);
      const result = runResultSchema.parse(finished.returnvalue);
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]?.isError).toBe(true);
      expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('may or may not have taken effect');
      await second.stop();
    },
  );

  it(
    'parks on the question the dead worker registered, and sends the call once it is answered',
    { timeout: 240_000 },
    async () => {
      await holdCallAnswers(true);
      const first = await spawnWorker();
      await enqueueDeploy('elicit-crash-asked', 'api');
      // The question is registered; the worker still waits for the server's (held) reply, so it has
      // not parked.
      const question = await pendingQuestion('elicit-crash-asked');
      expect(await jobState('elicit-crash-asked')).toBe('active');
      await first.kill();
      await holdCallAnswers(false);
      const second = await spawnWorker();

      // The next worker parks the run on the same question instead of finishing it without an answer.
      await eventually(
        async () => ((await jobState('elicit-crash-asked')) === 'waiting-children' ? true : undefined),
        90_000,
      );
      const pending = await client.listPendingElicitations({ runId: 'elicit-crash-asked' });
      expect(pending.map((record) => record.request.elicitationId)).toEqual([question.request.elicitationId]);
      expect(await serverLog('api')).toEqual([{ action: 'cancel', content: null }]);

      await client.answerElicitation({
        elicitationId: question.request.elicitationId,
        response: { action: 'accept', content: { environment: 'staging' } },
        answeredBy: 'crash-test',
      });
      const finished = await waitForJob(queue, 'elicit-crash-asked', 90_000);
      expect(finished.state).toBe('completed');
      const result = runResultSchema.parse(finished.returnvalue);
      expect(result.toolCalls).toHaveLength(1);
      expect(result.toolCalls[0]?.isError).toBe(false);
      expect(JSON.stringify(result.toolCalls[0]?.output)).toContain('deploy accept');
      expect((await serverLog('api')).at(-1)).toEqual({ action: 'accept', content: { environment: 'staging' } });
      expect((await serverLog('api')).filter((line) => line.action === 'accept')).toHaveLength(1);
      await second.stop();
    },
  );
});
