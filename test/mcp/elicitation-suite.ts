import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import type { RunningApi } from '@agentq/api';
import { ServerStore } from '@agentq/store';
import type { Queue } from 'bullmq';
import { startTestApi, type ApiCaller } from '../api/start-test-api.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { writeCatalogEntry } from '../worker/helpers/catalog.js';
import { runsQueue, startTestWorker, stopWorkerSuite } from '../worker/helpers/worker-harness.js';

/** A worker and an API on a private prefix, with the fixture's `deploy` server under policy `ask`. */
export interface ElicitationSuite {
  ctx: TestContext;
  worker: AgentWorker;
  queue: Queue;
  fixture: HttpFixture;
  api: RunningApi;
  http: ApiCaller;
  /** Where the fixture logs the answers its `deploy_service` received, one JSON line each. */
  elicitLog: string;
  close(): Promise<void>;
}

/**
 * Starts the suite: the fixture's `deploy_service` asks where to deploy (it asks only when it has
 * somewhere to log the answers), and its catalog entry is written directly, so no warmer runs.
 */
export async function startElicitationSuite(): Promise<ElicitationSuite> {
  const ctx = createTestContext();
  const folder = await mkdtemp(join(tmpdir(), 'agentq-elicit-'));
  const elicitLog = join(folder, 'elicit.log');
  const fixture = await startHttpFixture({ elicitLog });
  const definition = await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).put({
    id: 'deploy',
    transport: { type: 'streamable-http', url: fixture.url },
    elicitation: 'ask',
  });
  await writeCatalogEntry({
    redis: ctx.redis,
    prefix: ctx.prefix,
    definition,
    tools: [
      {
        name: 'deploy_service',
        description: 'Deploys a service.',
        inputSchema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
      },
    ],
  });
  const worker = await startTestWorker({
    redisUrl: ctx.redisUrl,
    prefix: ctx.prefix,
    env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true' },
  });
  const queue = runsQueue(ctx);
  const { api, http } = await startTestApi(ctx);
  return {
    ctx,
    worker,
    queue,
    fixture,
    api,
    http,
    elicitLog,
    async close() {
      await api.close();
      await fixture.stop();
      await stopWorkerSuite({ worker, queue, ctx });
      await rm(folder, { recursive: true, force: true });
    },
  };
}
