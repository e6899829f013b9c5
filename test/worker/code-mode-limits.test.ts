import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema, type RunSpecInput } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { enqueueRun, runsQueue, startTestWorker, stopWorkerSuite, waitForJob } from './helpers/worker-harness.js';

// The operator's caps reach the sandbox: a busy loop under a tiny AGENTQ_CODE_MODE_TIMEOUT_MS
// stops on the wall-time limit, where the default caps would stop it on the blocking limit.
describe('code mode: the sandbox caps come from the configuration', () => {
  let ctx: TestContext;
  let queue: Queue;
  let worker: AgentWorker;

  beforeAll(async () => {
    ctx = createTestContext();
    queue = runsQueue(ctx);
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_CODE_MODE: 'allowed', AGENTQ_CODE_MODE_TIMEOUT_MS: '40' },
    });
  });

  afterAll(async () => {
    await stopWorkerSuite({ worker, queue, ctx });
  });

  const spec = (code: string): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: [],
      settings: { codeMode: true },
      script: [{ toolCalls: [{ toolName: 'tool_exec', input: { code } }] }, { text: 'done' }],
    },
    input: { prompt: 'loop' },
  });

  it('stops a busy loop with EXEC_TIMEOUT at the configured wall time', async () => {
    await enqueueRun(queue, { runId: 'busy-loop', spec: spec('while (true) {}') });
    const finished = await waitForJob(queue, 'busy-loop', 90_000);
    expect(finished.state, finished.failedReason).toBe('completed');
    const exec = runResultSchema.parse(finished.returnvalue).toolCalls.find((call) => call.toolName === 'tool_exec');
    expect(exec?.output).toMatchObject({ ok: false, code: 'EXEC_TIMEOUT' });
    expect((exec?.output as { message: string }).message).toContain('40 ms');
  });
});
