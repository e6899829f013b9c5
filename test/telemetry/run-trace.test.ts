import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import type { RunningApi } from '@agentq/api';
import { startCatalogWarmer, type CatalogWarmer } from '@agentq/catalog-warmer';
import { agentqTracer, QUEUE_NAMES, silentLogger, traceContextOf, type Telemetry } from '@agentq/shared';
import { requestRefresh, ServerStore } from '@agentq/store';
import { context, trace } from '@opentelemetry/api';
import type { InMemorySpanExporter, ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { Job, Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiCaller, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startMemoryTelemetry } from './memory-telemetry.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

const counterTool = 'mcp__fx__counterIncrement';
/** A tool argument that must never reach a span while AGENTQ_TRACE_ARGUMENTS is off. */
const secretNote = 'note-4b1d-never-in-a-span';

describe('one trace per run, across processes roles and the approval', () => {
  let ctx: TestContext;
  let telemetry: Telemetry;
  let exporter: InMemorySpanExporter;
  let api: RunningApi;
  let http: ApiCaller;
  let queue: Queue;
  let folder: string;
  let counterFile: string;
  const workers: AgentWorker[] = [];
  let warmer: CatalogWarmer | undefined;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ telemetry, exporter } = await startMemoryTelemetry());
    folder = await mkdtemp(join(tmpdir(), 'agentq-trace-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'fx',
        transport: fixtureStdioTransport({ counterFile }),
        // The fixture starts through tsx: on a busy machine that alone can pass the 10 s default.
        timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
      },
    });
    const { startApi } = await import('@agentq/api');
    api = await startApi({ config: testConfig(ctx), logger: silentLogger() });
    http = apiCaller(api.url);
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    for (const worker of workers) await worker.close().catch(() => undefined);
    await warmer?.close().catch(() => undefined);
    await api?.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const each = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await each.obliterate({ force: true }).catch(() => undefined);
      await each.close();
    }
    await telemetry?.shutdown();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('parks on worker A, is decided over REST, resumes on worker B: one connected trace', async () => {
    const workerA = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    workers.push(workerA);

    // The producing service has a span of its own and sends its traceparent with the request.
    const caller = agentqTracer().startSpan('test.caller');
    const callerContext = trace.setSpan(context.active(), caller);
    const header = traceContextOf(callerContext);
    expect(header).toBeDefined();
    const enqueued = await http.call('POST', '/v1/runs', {
      headers: { traceparent: header?.traceparent as string },
      body: {
        runId: 'traced-1',
        spec: {
          assistant: {
            model: 'scripted:test',
            mcpServers: ['fx'],
            script: [{ toolCalls: [{ toolName: counterTool, input: { note: secretNote } }] }, { text: 'done' }],
          },
          input: { prompt: 'count, with permission' },
          approval: { requireFor: ['fx:counter_increment'] },
        },
      },
    });
    caller.end();
    expect(enqueued.status).toBe(201);

    const pending = await eventually(async () => {
      const job = await Job.fromId(queue, 'traced-1');
      if (!job || (await job.getState()) !== 'waiting-children') return undefined;
      const listed = await http.call('GET', '/v1/approvals?runId=traced-1');
      return listed.body?.approvals?.[0] as { approvalId: string; serverId?: string } | undefined;
    });
    // The REST view names the server the gated call goes to, not only its wire name.
    expect(pending.serverId).toBe('fx');
    // Worker A goes away while the run is parked; worker B picks up the resume.
    await workerA.close();
    const workerB = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    workers.push(workerB);

    const decided = await http.call('POST', `/v1/approvals/${pending.approvalId}/decision`, {
      body: { approved: true },
    });
    expect(decided.status).toBe(200);
    const finished = await waitForJob(queue, 'traced-1');
    expect(finished.state).toBe('completed');
    expect((await readCounterNotes(counterFile)).filter((note) => note === secretNote)).toHaveLength(1);

    const spans = await eventually(async () => {
      const all = exporter.getFinishedSpans();
      return all.filter((span) => span.name === 'agentq.run').length >= 2 && all.some((s) => s.name === 'ai.toolCall')
        ? all
        : undefined;
    });
    const traceId = caller.spanContext().traceId;
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const parentOf = (span: ReadableSpan) => byId.get(span.parentSpanContext?.spanId ?? '');
    const one = (name: string, where: (span: ReadableSpan) => boolean = () => true) => {
      const found = spans.filter((span) => span.name === name && where(span));
      expect(found, name).toHaveLength(1);
      return found[0] as ReadableSpan;
    };
    const ancestors = (span: ReadableSpan) => {
      const chain: string[] = [];
      for (let at = parentOf(span); at; at = parentOf(at)) chain.push(at.name);
      return chain;
    };

    // Every span of the run is in the caller's trace.
    const runSpans = spans.filter((span) => span.attributes['agentq.run.id'] === 'traced-1');
    expect(runSpans.length).toBeGreaterThan(5);
    for (const span of runSpans) expect(span.spanContext().traceId, span.name).toBe(traceId);

    const enqueueHttp = one('POST /v1/runs');
    expect(enqueueHttp.parentSpanContext?.spanId).toBe(caller.spanContext().spanId);
    const enqueue = one('agentq.run.enqueue');
    expect(parentOf(enqueue)).toBe(enqueueHttp);

    // Two attempts, both children of the enqueue, on two workers: parked, then completed.
    const attempts = spans.filter((span) => span.name === 'agentq.run');
    expect(attempts).toHaveLength(2);
    const parked = attempts.find((span) => span.attributes['agentq.outcome'] === 'parked') as ReadableSpan;
    const resumed = attempts.find((span) => span.attributes['agentq.outcome'] === 'completed') as ReadableSpan;
    expect(parked).toBeDefined();
    expect(resumed).toBeDefined();
    for (const attempt of attempts) expect(parentOf(attempt)).toBe(enqueue);
    expect(parked.attributes['agentq.worker.id']).toBe(workerA.id);
    expect(resumed.attributes['agentq.worker.id']).toBe(workerB.id);
    expect(resumed.attributes['agentq.run.resumed']).toBe(true);

    // The step that asked, the wait and the decision hang together.
    const asking = one('agentq.run.step', (span) => span.attributes['agentq.step.approvals_requested'] === 1);
    expect(parentOf(asking)).toBe(parked);
    const wait = one('agentq.approval.wait');
    expect(parentOf(wait)).toBe(asking);
    expect(wait.attributes).toMatchObject({ 'agentq.outcome': 'decision', 'agentq.approval.approved': true });
    const decision = one('agentq.approval.decide');
    expect(parentOf(decision)).toBe(asking);
    expect(decision.attributes).toMatchObject({ 'agentq.approval.via': 'rest', 'agentq.approval.approved': true });
    const decideHttp = one('POST /v1/approvals/{approvalId}/decision');
    expect(decision.links.map((link) => link.context.spanId)).toEqual([decideHttp.spanContext().spanId]);

    // Model calls under both attempts; the tool call ran under the resumed one, once.
    const modelCalls = spans.filter((span) => span.name === 'ai.generateText.doGenerate');
    expect(modelCalls.length).toBeGreaterThanOrEqual(2);
    for (const call of modelCalls) expect(parentOf(call)?.name).toBe('agentq.run.step');
    const toolCall = one('ai.toolCall');
    expect(ancestors(toolCall)).toEqual([
      'agentq.run.step',
      'agentq.run',
      'agentq.run.enqueue',
      'POST /v1/runs',
      'test.caller',
    ]);
    expect(parentOf(parentOf(toolCall) as ReadableSpan)).toBe(resumed);
    expect(toolCall.attributes['agentq.tool.outcome']).toBe('executed');

    // Tool arguments and results stay out of every span.
    for (const span of spans) expect(JSON.stringify(span.attributes), span.name).not.toContain(secretNote);
  });

  it('records tool arguments on spans only with AGENTQ_TRACE_ARGUMENTS=true', async () => {
    // Only a worker that was asked to may run this one.
    for (const running of workers.splice(0)) await running.close();
    const worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_TRACE_ARGUMENTS: 'true' },
    });
    workers.push(worker);
    const note = 'note-shown-because-asked';
    const enqueued = await http.call('POST', '/v1/runs', {
      body: {
        runId: 'traced-arguments',
        spec: {
          assistant: {
            model: 'scripted:test',
            mcpServers: ['fx'],
            script: [{ toolCalls: [{ toolName: counterTool, input: { note } }] }, { text: 'done' }],
          },
          input: { prompt: 'count' },
        },
      },
    });
    expect(enqueued.status).toBe(201);
    expect((await waitForJob(queue, 'traced-arguments')).state).toBe('completed');
    const toolCall = await eventually(async () =>
      exporter
        .getFinishedSpans()
        .find((span) => span.name === 'ai.toolCall' && span.attributes['agentq.run.id'] === 'traced-arguments'),
    );
    expect(String(toolCall.attributes['ai.toolCall.args'])).toContain(note);
    await worker.close();
  });

  it('gives each warmer refresh a span with server id, reason, outcome and tool count', async () => {
    expect(await new ServerStore({ redis: ctx.redis, prefix: ctx.prefix }).get('fx')).not.toBeNull();
    warmer = await startCatalogWarmer({ config: testConfig(ctx), logger: silentLogger() });
    const refreshQueue = new Queue(QUEUE_NAMES.catalogRefresh, { connection: ctx.redis, prefix: ctx.prefix });
    try {
      await requestRefresh(refreshQueue, { serverId: 'fx', reason: 'on-demand' });
      const span = await eventually(
        async () =>
          exporter
            .getFinishedSpans()
            .find(
              (each) =>
                each.name === 'agentq.catalog.refresh' &&
                each.attributes['agentq.refresh.reason'] === 'on-demand' &&
                each.attributes['agentq.outcome'] !== 'busy',
            ),
        60_000,
      );
      expect(span.attributes).toMatchObject({
        'agentq.server.id': 'fx',
        'agentq.refresh.reason': 'on-demand',
        'agentq.outcome': 'connected',
        'agentq.warmer.id': warmer.id,
      });
      expect(span.attributes['agentq.catalog.tool_count']).toBeGreaterThan(0);
      expect(span.parentSpanContext).toBeUndefined();
    } finally {
      await refreshQueue.close();
    }
  });
});
