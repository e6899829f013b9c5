import type { AgentWorker } from '@agentq/agent-worker';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { QUEUE_NAMES, type Telemetry } from '@agentq/shared';
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAgentq } from '../cli/run-agentq.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startMemoryTelemetry } from './memory-telemetry.js';
import { everythingCommand, warmServer } from '../worker/helpers/catalog.js';
import { eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

/** A span from either side (the CLI's over OTLP, the workers' in memory), ids as hex. */
interface AnySpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

function fromMemory(span: ReadableSpan): AnySpan {
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    attributes: { ...span.attributes },
  };
}

describe('a run enqueued and approved from the CLI is one trace', () => {
  let ctx: TestContext;
  let telemetry: Telemetry;
  let exporter: InMemorySpanExporter;
  let receiver: OtlpReceiver;
  let client: AgentqClient;
  let queue: Queue;
  const workers: AgentWorker[] = [];

  beforeAll(async () => {
    ctx = createTestContext();
    ({ telemetry, exporter } = await startMemoryTelemetry());
    receiver = await startOtlpReceiver();
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'everything',
        transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] },
        alwaysAsk: ['echo'],
      },
    });
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  }, 120_000);

  afterAll(async () => {
    for (const worker of workers) await worker.close().catch(() => undefined);
    await client?.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const each = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await each.obliterate({ force: true }).catch(() => undefined);
      await each.close();
    }
    await receiver?.close();
    await telemetry?.shutdown();
    await ctx?.close();
  });

  it('joins enqueue, steps, the approval wait, the decision and the resume on another worker', async () => {
    const workerA = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    workers.push(workerA);
    const cliEnv = {
      REDIS_URL: ctx.redisUrl,
      AGENTQ_PREFIX: ctx.prefix,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: '',
      LOG_LEVEL: 'silent',
    };
    const runId = 'cli-traced-1';
    const enqueued = await runAgentq(['run', '--demo', '--run-id', runId], cliEnv, 120_000);
    expect(enqueued.stderr).toBe('');
    expect(enqueued.code).toBe(0);

    const approvalId = await eventually(async () => {
      const job = await Job.fromId(queue, runId);
      if (!job || (await job.getState()) !== 'waiting-children') return undefined;
      return (await client.getRun(runId)).pendingApprovals[0]?.approvalId;
    }, 120_000);
    // Worker A goes away while the run is parked; worker B picks up the resume.
    await workerA.close();
    const workerB = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    workers.push(workerB);
    const decided = await runAgentq(['approvals', 'approve', approvalId], cliEnv, 120_000);
    expect(decided.code).toBe(0);
    expect((await waitForJob(queue, runId, 120_000)).state).toBe('completed');

    const spans = await eventually(async () => {
      const memory = exporter.getFinishedSpans();
      const attempts = memory.filter(
        (span) => span.name === 'agentq.run' && span.attributes['agentq.run.id'] === runId,
      );
      return attempts.length >= 2 && memory.some((span) => span.name === 'agentq.approval.wait')
        ? [...memory.map(fromMemory), ...receiver.spans().map((span: ReceivedSpan) => ({ ...span }))]
        : undefined;
    }, 60_000);
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: AnySpan) => (span.parentSpanId ? byId.get(span.parentSpanId) : undefined);
    const named = (name: string, where: (span: AnySpan) => boolean = () => true) =>
      spans.filter((span) => span.name === name && where(span));
    const one = (name: string, where?: (span: AnySpan) => boolean) => {
      const found = named(name, where);
      expect(found, name).toHaveLength(1);
      return found[0] as AnySpan;
    };

    // The CLI opened the trace: its enqueue span is the root, and its job carried the context.
    const enqueue = one('agentq.run.enqueue', (span) => span.attributes['agentq.run.id'] === runId);
    expect(enqueue.parentSpanId).toBeUndefined();
    const traceId = enqueue.traceId;
    const runSpans = spans.filter((span) => span.attributes['agentq.run.id'] === runId);
    expect(runSpans.length).toBeGreaterThan(8);
    for (const span of runSpans) expect(span.traceId, span.name).toBe(traceId);

    // Two attempts under the enqueue, on two workers.
    const attempts = named('agentq.run', (span) => span.attributes['agentq.run.id'] === runId);
    expect(attempts).toHaveLength(2);
    for (const attempt of attempts) expect(parentOf(attempt)).toBe(enqueue);
    const parked = attempts.find((span) => span.attributes['agentq.outcome'] === 'parked') as AnySpan;
    const resumed = attempts.find((span) => span.attributes['agentq.outcome'] === 'completed') as AnySpan;
    expect(parked.attributes['agentq.worker.id']).toBe(workerA.id);
    expect(resumed.attributes['agentq.worker.id']).toBe(workerB.id);

    // The asking step, the wait under it, and the CLI's decision under it too.
    const asking = one('agentq.run.step', (span) => span.attributes['agentq.step.approvals_requested'] === 1);
    expect(parentOf(asking)).toBe(parked);
    expect(parentOf(one('agentq.approval.wait'))).toBe(asking);
    const decision = one('agentq.approval.decide');
    expect(decision.attributes['agentq.approval.via']).toBe('cli');
    expect(parentOf(decision)).toBe(asking);

    // Every tool call the SDK made hangs under a step of its attempt.
    const toolCalls = named('ai.toolCall');
    const direct = toolCalls.filter((span) => parentOf(span)?.name !== 'ai.toolCall');
    expect(direct.map((span) => span.attributes['ai.toolCall.name']).sort()).toEqual([
      'mcp__everything__echo',
      'tool_inspect',
      'tool_invoke',
      'tool_search',
    ]);
    for (const span of direct)
      expect(parentOf(span)?.name, String(span.attributes['ai.toolCall.name'])).toBe('agentq.run.step');
    const echo = one('ai.toolCall', (span) => span.attributes['ai.toolCall.name'] === 'mcp__everything__echo');
    expect(parentOf(parentOf(echo) as AnySpan)).toBe(resumed);
    expect(echo.attributes['agentq.tool.outcome']).toBe('executed');
    // The MCP call tool_invoke made has a span of its own, nested under tool_invoke's.
    const invoke = one('ai.toolCall', (span) => span.attributes['ai.toolCall.name'] === 'tool_invoke');
    const nested = one('ai.toolCall', (span) => span.attributes['ai.toolCall.name'] === 'mcp__everything__getSum');
    expect(parentOf(nested)).toBe(invoke);
    expect(nested.attributes['agentq.tool.outcome']).toBe('executed');
    expect(invoke.attributes['agentq.tool.outcome']).toBe('executed');
    // Model calls sit under the steps too.
    for (const call of named('ai.generateText.doGenerate')) expect(parentOf(call)?.name).toBe('agentq.run.step');
  }, 300_000);
});
