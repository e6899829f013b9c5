import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

function spec(prompt: string) {
  return { assistant: { model: 'scripted:parsed', script: [{ text: 'done' }] }, input: { prompt } };
}

describe('enqueueRun of a spec the client already parsed', () => {
  let ctx: TestContext;
  let client: AgentqClient;
  let strict: AgentqClient;
  let runs: Queue;

  beforeAll(() => {
    ctx = createTestContext();
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    // Same Redis and prefix, tighter limits: its own parse refuses what the first one accepts.
    strict = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix, runSpecLimits: { maxInputBytes: 64 } });
    runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
  });

  afterEach(() => {
    vi.restoreAllMocks();
  });

  afterAll(async () => {
    await runs?.obliterate({ force: true }).catch(() => {});
    await runs?.close();
    await client?.close();
    await strict?.close();
    await ctx?.close();
  });

  it('takes the result of parsedRunSpecSchema without parsing it again, and enqueues it as parsed', async () => {
    const parsed = client.parsedRunSpecSchema.parse({ ...spec('parsed once'), metadata: { team: 'a' } });
    const parse = vi.spyOn(client.runSpecSchema, 'safeParse');
    const { runId, created } = await client.enqueueRun(parsed, { runId: 'parsed-once' });
    expect(created).toBe(true);
    expect(parse).not.toHaveBeenCalled();
    const job = await runs.getJob(runId);
    expect(job?.data).toMatchObject({ input: { prompt: 'parsed once' }, metadata: { team: 'a' } });
  });

  it('parses anything else: a plain object, even one equal to a parsed spec, or a copy of one', async () => {
    const parsed = client.parsedRunSpecSchema.parse(spec('copied'));
    const parse = vi.spyOn(client.runSpecSchema, 'safeParse');
    await client.enqueueRun(structuredClone(parsed));
    await client.enqueueRun({ ...parsed });
    await client.enqueueRun(spec('plain'));
    expect(parse).toHaveBeenCalledTimes(3);
    // Untrusted data is still refused, naming the field.
    await expect(client.enqueueRun({ ...parsed, assistant: { model: 'no-provider' } })).rejects.toMatchObject({
      code: 'VALIDATION',
      field: 'assistant.model',
    });
  });

  it('a parsed spec cannot change before it is enqueued: it is frozen all the way down', () => {
    const parsed = client.parsedRunSpecSchema.parse(spec('frozen')) as unknown as {
      input: { prompt: string };
      assistant: { script: Array<{ text: string }> };
    };
    expect(() => {
      parsed.input.prompt = 'x'.repeat(1024 * 1024);
    }).toThrow(TypeError);
    expect(() => {
      parsed.assistant.script.push({ text: 'more' });
    }).toThrow(TypeError);
    expect(parsed.input.prompt).toBe('frozen');
  });

  it('a spec parsed under other limits is parsed again under this client’s', async () => {
    const parsed = client.parsedRunSpecSchema.parse(spec('x'.repeat(200)));
    await expect(strict.enqueueRun(parsed)).rejects.toMatchObject({ code: 'VALIDATION', field: 'input.prompt' });
  });
});
