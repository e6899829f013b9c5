import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import type { Queue } from 'bullmq';
import { fixtureStdioTransport } from '../../fixtures/mcp/spawn-fixture.js';
import type { FakeProviderServer, RecordedRequest } from '../../fixtures/providers/fake-provider-server.js';
import { createTestContext, type TestContext } from '../../helpers/test-context.js';
import { warmServer } from '../../worker/helpers/catalog.js';
import {
  enqueueRun,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
  type FinishedJob,
} from '../../worker/helpers/worker-harness.js';

/** A worker whose provider points at a loopback fake, with the fixture MCP server `fx` warmed. */
export interface ContractSuite {
  fake: FakeProviderServer;
  /** Runs `model` with the system prompt `Be brief.` and the prompt `say hi`; returns its requests. */
  run(options: {
    runId: string;
    model: string;
    mcpServers?: string[];
  }): Promise<{ finished: FinishedJob; requests: RecordedRequest[] }>;
  /** The notes the fixture's `counterIncrement` tool was called with, one per call. */
  counterNotes(): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts a {@link ContractSuite}; `env` names the provider's key and base URL settings. */
export async function startContractSuite(options: {
  fake: FakeProviderServer;
  env: (baseUrl: string) => Record<string, string>;
}): Promise<ContractSuite> {
  const { fake } = options;
  const ctx: TestContext = createTestContext();
  const folder = await mkdtemp(join(tmpdir(), 'agentq-provider-contract-'));
  const counterFile = join(folder, 'counter.log');
  await warmServer({
    redis: ctx.redis,
    prefix: ctx.prefix,
    // A stdio fixture starts through tsx: on a busy machine that can take longer than the default.
    definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }), timeouts: { connectMs: 60_000 } },
  });
  const worker: AgentWorker = await startTestWorker({
    redisUrl: ctx.redisUrl,
    prefix: ctx.prefix,
    env: options.env(fake.baseUrl),
  });
  const queue: Queue = runsQueue(ctx);
  return {
    fake,
    async run(runOptions) {
      const first = fake.requests.length;
      await enqueueRun(queue, {
        runId: runOptions.runId,
        spec: {
          assistant: { model: runOptions.model, system: 'Be brief.', mcpServers: runOptions.mcpServers ?? [] },
          input: { prompt: 'say hi' },
        },
        attempts: 1,
      });
      const finished = await waitForJob(queue, runOptions.runId, 60_000);
      return { finished, requests: fake.requests.slice(first) };
    },
    async counterNotes() {
      const text = await readFile(counterFile, 'utf8').catch(() => '');
      return text.split('\n').filter((line) => line.trim() !== '');
    },
    async close() {
      await fake.close();
      await stopWorkerSuite({ worker, queue, ctx });
      await rm(folder, { recursive: true, force: true });
    },
  };
}
