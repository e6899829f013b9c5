import type { AgentWorker } from '@agentq/agent-worker';
import type { RunningApi } from '@agentq/api';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { AgentqError } from '@agentq/shared';
import { Job, type Queue } from 'bullmq';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { eventually, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

// Run specs from the friendly to the hostile, through the client and REST. Three things must hold:
// every input is accepted or refused with a coded 4xx error, no worker goes down, and no job retries.

const ids = fc.constantFrom('c1', 'c2', 'c3', '', 'appr-1');
const text = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('__proto__', 'constructor', '*', '${OPENAI_API_KEY}'),
);

const part = fc.oneof(
  fc.record({ type: fc.constant('text'), text }),
  fc.record({ type: fc.constant('tool-call'), toolCallId: ids, toolName: text, input: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({
    type: fc.constant('tool-result'),
    toolCallId: ids,
    toolName: text,
    output: fc.oneof(fc.record({ type: fc.constant('text'), value: text }), fc.jsonValue({ maxDepth: 1 })),
  }),
  fc.record({ type: fc.constant('tool-approval-request'), approvalId: ids, toolCallId: ids }),
  fc.record({ type: fc.constant('tool-approval-response'), approvalId: ids, approved: fc.boolean() }),
  fc.record({ type: text }),
  fc.jsonValue({ maxDepth: 2 }),
);

const message = fc.record(
  {
    role: fc.constantFrom('system', 'user', 'assistant', 'tool', 'robot'),
    content: fc.oneof(text, fc.array(part, { maxLength: 4 }), fc.jsonValue({ maxDepth: 1 })),
  },
  { requiredKeys: ['role'] },
);

const script = fc.array(
  fc.oneof(
    fc.record({ text }),
    fc.record({
      toolCalls: fc.array(fc.record({ toolName: text, input: fc.jsonValue({ maxDepth: 2 }) }), { maxLength: 2 }),
    }),
  ),
  { maxLength: 3 },
);

const spec = fc.record(
  {
    assistant: fc.record(
      {
        model: fc.constantFrom('scripted:fuzz', 'scripted:demo', 'openai:gpt-4o-mini', 'nope', 'unknown:model'),
        system: text,
        mcpServers: fc.array(text, { maxLength: 3 }),
        maxSteps: fc.integer({ min: -1, max: 250 }),
        script,
        mcpMode: fc.constantFrom('manual', 'auto', 'disabled', 'all'),
      },
      { requiredKeys: ['model'] },
    ),
    input: fc.oneof(
      fc.record({ prompt: text }),
      fc.record({ messages: fc.array(message, { maxLength: 5 }) }),
      fc.jsonValue({ maxDepth: 2 }),
    ),
    approval: fc.record(
      {
        requireFor: fc.array(fc.oneof(text, fc.constantFrom('*'.repeat(300), `${'*'.repeat(200)}X`)), { maxLength: 3 }),
        timeoutMs: fc.integer({ min: -5, max: 2_000 }),
      },
      { requiredKeys: [] },
    ),
    metadata: fc.dictionary(
      text,
      fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null), fc.jsonValue({ maxDepth: 1 })),
      {
        maxKeys: 4,
      },
    ),
    tools: fc.array(text, { maxLength: 3 }),
    extra: fc.jsonValue({ maxDepth: 1 }),
  },
  { requiredKeys: ['assistant', 'input'] },
);

/** Specs a worker can run (a scripted model, no servers), so that accepted runs are common. */
const runnableSpec = fc.record(
  {
    assistant: fc.record(
      {
        model: fc.constantFrom('scripted:fuzz', 'unknown:model'),
        script: fc.array(
          fc.oneof(
            fc.record({ text }),
            fc.record({
              toolCalls: fc.array(fc.record({ toolName: text, input: fc.jsonValue({ maxDepth: 2 }) }), {
                minLength: 1,
                maxLength: 2,
              }),
            }),
          ),
          { minLength: 1, maxLength: 3 },
        ),
        maxSteps: fc.integer({ min: 1, max: 5 }),
        system: text,
      },
      { requiredKeys: ['model', 'script'] },
    ),
    input: fc.oneof(
      fc.record({ prompt: fc.string({ minLength: 1, maxLength: 20 }) }),
      fc.record({
        messages: fc.array(
          fc.record({
            role: fc.constantFrom('user', 'assistant'),
            content: fc.string({ minLength: 1, maxLength: 20 }),
          }),
          { minLength: 1, maxLength: 3 },
        ),
      }),
    ),
    approval: fc.record(
      {
        requireFor: fc.array(fc.constantFrom('*', 'mcp__*', 'tool_*', `${'*'.repeat(100)}X`), { maxLength: 3 }),
        timeoutMs: fc.integer({ min: 1, max: 2_000 }),
      },
      { requiredKeys: [] },
    ),
    metadata: fc.dictionary(
      fc.string({ maxLength: 10 }),
      fc.oneof(text, fc.integer(), fc.boolean(), fc.constant(null)),
      {
        maxKeys: 3,
      },
    ),
  },
  { requiredKeys: ['assistant', 'input'] },
);

const anyBody = fc.oneof(
  { weight: 4, arbitrary: runnableSpec },
  { weight: 4, arbitrary: spec },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);

describe('run spec fuzzing through the client and REST', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let api: RunningApi;
  let http: ApiCaller;
  let worker: AgentWorker;
  let queue: Queue;
  const accepted: string[] = [];

  beforeAll(async () => {
    ctx = createTestContext();
    // Retries allowed, so that a retry would show in attemptsMade.
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, runAttempts: 3 });
    ({ api, http } = await startTestApi(ctx, testConfig(ctx, { AGENTQ_RUN_ATTEMPTS: '3' })));
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await api?.close();
    await client?.close();
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
  });

  it('accepts or refuses every input with a coded 4xx error', async () => {
    let index = 0;
    await fc.assert(
      fc.asyncProperty(anyBody, async (body) => {
        index += 1;
        // The client: a created run, or an AgentqError with a code (never a crash or a bare Error).
        const viaClient = await client.enqueueRun(body, { runId: `fuzz-client-${index}` }).then(
          (enqueued) => ({ enqueued }),
          (error: unknown) => ({ error }),
        );
        if ('enqueued' in viaClient) accepted.push(viaClient.enqueued.runId);
        else {
          expect(AgentqError.isInstance(viaClient.error)).toBe(true);
          expect((viaClient.error as AgentqError).code).toBe('VALIDATION');
        }
        // REST: 201, or a 4xx with a coded error body; the same verdict as the client.
        const rest = await http.call('POST', '/v1/runs', { body });
        if (rest.status === 201) {
          accepted.push(rest.body.runId as string);
          expect('enqueued' in viaClient).toBe(true);
        } else {
          expect(rest.status).toBeGreaterThanOrEqual(400);
          expect(rest.status).toBeLessThan(500);
          expect(typeof rest.body.error.code).toBe('string');
        }
      }),
      { numRuns: 150 },
    );
  });

  it('runs every accepted spec to an end without a retry, and the worker stays up', async () => {
    // The generator is tuned so that a fair share of specs gets through to a worker.
    expect(accepted.length).toBeGreaterThan(10);
    for (const runId of accepted) {
      // A run that parks on an approval holds no worker; that is an end for this test too.
      const job = await eventually(async () => {
        const current = await Job.fromId(queue, runId);
        const state = await current?.getState();
        return state === 'completed' || state === 'failed' || state === 'waiting-children' ? current : undefined;
      }, 45_000);
      expect(job.attemptsMade, runId).toBeLessThanOrEqual(1);
    }
    // The worker still takes work.
    const honest = await client.enqueueRun({
      assistant: { model: 'scripted:fuzz', script: [{ text: 'still here' }] },
      input: { prompt: 'are you there?' },
    });
    const finished = await waitForJob(queue, honest.runId);
    expect(finished.state).toBe('completed');
  });
});
