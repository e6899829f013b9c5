import type { AgentWorker } from '@agentq/agent-worker';
import { listPendingApprovals } from '../../packages/client/src/approvals/index.js';
import { redisTime } from '@agentq/store';
import { Job, type Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { enqueueRun, eventually, runsQueue, startTestWorker } from '../worker/helpers/worker-harness.js';

// The parking worker's clock runs an hour slow. The person's window is the run's approval timeout
// by Redis's clock (the one expiry is judged by), not an hour less: with the worker's own clock the
// approval would be born expired.
describe('an approval parked by a worker whose clock runs slow', () => {
  const skewMs = -3_600_000;
  const timeoutMs = 600_000;
  const realNow = Date.now.bind(Date);
  let ctx: TestContext;
  let worker: AgentWorker | undefined;
  let queue: Queue;

  beforeAll(async () => {
    ctx = createTestContext();
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({}) },
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await worker?.close();
    vi.restoreAllMocks();
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await ctx?.close();
  });

  it('dates the approval by Redis time and gives it the whole timeout', async () => {
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + skewMs);
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    await enqueueRun(queue, {
      runId: 'slow-park',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['fx'],
          script: [{ toolCalls: [{ toolName: 'mcp__fx__counterIncrement', input: { note: 'x' } }] }, { text: 'done' }],
        },
        input: { prompt: 'count, with permission' },
        approval: { requireFor: ['fx:counter_increment'], timeoutMs },
      },
    });
    await eventually(async () => {
      const job = await Job.fromId(queue, 'slow-park');
      return job && (await job.getState()) === 'waiting-children' ? true : undefined;
    });
    const [pending] = await listPendingApprovals(ctx, { runId: 'slow-park' });
    const now = await redisTime(ctx.redis);
    expect(pending).toBeDefined();
    expect(pending?.expiresAt).toBeGreaterThan(now);
    // Requested by Redis's clock: within the test's own run of it, an hour away from the worker's.
    expect(Math.abs((pending?.requestedAt ?? 0) - now)).toBeLessThan(-skewMs / 2);
    expect((pending?.expiresAt ?? 0) - (pending?.requestedAt ?? 0)).toBe(timeoutMs);
  });
});
