import { randomUUID } from 'node:crypto';
import { createModelResolver, startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { startApi, type RunningApi } from '@agentq/api';
import { startCatalogWarmer, type CatalogWarmer } from '@agentq/catalog-warmer';
import { catalogEntrySchema, runResultSchema, silentLogger, type CatalogEntry } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import type { Queue } from 'bullmq';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { apiCaller, testConfig as apiTestConfig, TEST_TOKEN, type ApiCaller } from '../api/start-test-api.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer } from '../worker/helpers/catalog.js';
import { enqueueRun, runsQueue, testConfig, waitForJob, fastTuning } from '../worker/helpers/worker-harness.js';
import { adminLogin } from './admin-helpers.js';

// Quotes, a backslash, a space and URL metacharacters: its plain, JSON-escaped, percent-encoded,
// hex and base64 forms all differ.
const secret = `echo-${randomUUID()} "q"/+&=\\z`;
const secretName = `AGENTQ_SECRET_ECHO_${randomUUID().replace(/-/g, '').slice(0, 8).toUpperCase()}`;

/**
 * The secret as it could sit in stored or shown text, computed here on its own (not with the
 * masker's list): plain and JSON-escaped (once and twice), each of those percent-encoded, in hex
 * and in base64 at each byte offset, and HTML-escaped for pages.
 */
function leakedForms(value: string): string[] {
  const escaped = JSON.stringify(value).slice(1, -1);
  const texts = [value, escaped, JSON.stringify(escaped).slice(1, -1)];
  const forms = new Set<string>(texts);
  for (const text of texts) {
    forms.add(encodeURIComponent(text));
    forms.add(encodeURIComponent(text).replace(/%20/g, '+'));
    forms.add(Buffer.from(text).toString('hex'));
    forms.add(Buffer.from(text).toString('hex').toUpperCase());
    forms.add(text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;'));
    forms.add(text.replace(/&/g, '&amp;').replace(/"/g, '&#34;'));
    const bytes = Buffer.from(text);
    for (let skip = 0; skip < 3; skip += 1) {
      const whole = Math.floor((bytes.length - skip) / 3) * 3;
      const middle = bytes.subarray(skip, skip + whole);
      forms.add(middle.toString('base64'));
      forms.add(middle.toString('base64url'));
    }
  }
  // The part that tells the secret apart from any other text: the random id alone.
  forms.add(value.slice(5, 41));
  return [...forms];
}

function expectNoSecret(where: string, text: string): void {
  for (const form of leakedForms(secret)) {
    expect(text.includes(form), `${where} holds the secret as ${form}`).toBe(false);
  }
}

/** Every key under `prefix` with its whole value as text, whatever its type. */
async function dumpKeys(redis: TestContext['redis'], prefix: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      let value: unknown;
      if (type === 'string') value = await redis.get(key);
      else if (type === 'hash') value = await redis.hgetall(key);
      else if (type === 'list') value = await redis.lrange(key, 0, -1);
      else if (type === 'set') value = await redis.smembers(key);
      else if (type === 'zset') value = await redis.zrange(key, 0, -1, 'WITHSCORES');
      else if (type === 'stream') value = await redis.xrange(key, '-', '+');
      else value = `(${type})`;
      out.set(key, JSON.stringify(value));
    }
  } while (cursor !== '0');
  return out;
}

describe('a secret a server echoes in a successful result', () => {
  let ctx: TestContext;
  let fixture: HttpFixture;
  let worker: AgentWorker;
  let warmer: CatalogWarmer;
  let api: RunningApi;
  let http: ApiCaller;
  let queue: Queue;
  const models: MockLanguageModelV3[] = [];
  let echoEntry: CatalogEntry;

  beforeAll(async () => {
    ctx = createTestContext();
    // Six synthetic tools besides echo_headers: enough for a small window to defer them all.
    fixture = await startHttpFixture({ echoHeaders: true, tools: 6 });
    const config = testConfig({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true' },
    });
    const scripted = createModelResolver({ config });
    worker = await startAgentWorker({
      config,
      logger: silentLogger(),
      env: { ...process.env, [secretName]: secret },
      tuning: fastTuning,
      // The scripted model, behind a mock that records every prompt it was given.
      models: {
        resolve(assistant) {
          const resolved = scripted.resolve(assistant);
          const model = new MockLanguageModelV3({ doGenerate: (options) => resolved.model.doGenerate(options) });
          models.push(model);
          return { ...resolved, model };
        },
      },
    });
    // The warmer lists the server for real; its listed description quotes the request headers.
    warmer = await startCatalogWarmer({
      config,
      logger: silentLogger(),
      env: { ...process.env, [secretName]: secret },
    });
    await putServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'echo',
        transport: { type: 'streamable-http', url: fixture.url, headers: { 'x-echo-key': `\${${secretName}}` } },
      },
    });
    echoEntry = await vi.waitFor(
      async () => {
        const text = await ctx.redis.get(keyNames(ctx.prefix).tools('echo'));
        expect(text).not.toBeNull();
        return catalogEntrySchema.parse(JSON.parse(text as string));
      },
      { timeout: 60_000, interval: 50 },
    );
    api = await startApi({ config: apiTestConfig(ctx), logger: silentLogger() });
    http = apiCaller(api.url);
    queue = runsQueue(ctx);
  }, 90_000);

  afterAll(async () => {
    await api?.close();
    await worker?.close();
    await warmer?.close();
    await fixture?.stop();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
  });

  it('is masked in every form before the journal, the checkpoint, the result, the pages and the model', async () => {
    await enqueueRun(queue, {
      runId: 'echo-direct',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['echo'],
          contextWindow: 1_000_000,
          script: [{ toolCalls: [{ toolName: 'mcp__echo__echoHeaders', input: {} }] }, { text: 'done' }],
        },
        input: { prompt: 'echo' },
      },
    });
    await enqueueRun(queue, {
      runId: 'echo-invoke',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['echo'],
          // Small window: the server's tools are deferred, and reached through tool_invoke.
          contextWindow: 2_000,
          script: [
            { toolCalls: [{ toolName: 'tool_inspect', input: { name: 'mcp__echo__echoHeaders' } }] },
            { toolCalls: [{ toolName: 'tool_invoke', input: { name: 'mcp__echo__echoHeaders', params: {} } }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'echo' },
      },
    });
    const cookie = await adminLogin(api.url, TEST_TOKEN);
    for (const runId of ['echo-direct', 'echo-invoke']) {
      const finished = await waitForJob(queue, runId);
      expect(finished.state).toBe('completed');
      const result = runResultSchema.parse(finished.returnvalue);
      const echoed = result.toolCalls.at(-1);
      expect(echoed?.isError).toBe(false);
      // The call really happened and carried the header: its value came back, masked.
      expect(JSON.stringify(echoed?.output)).toContain('x-echo-key');
      expect(JSON.stringify(echoed?.output)).toContain('[redacted]');
      expectNoSecret(`${runId} job result`, JSON.stringify(finished.returnvalue));

      const rest = await http.call('GET', `/v1/runs/${runId}`);
      expect(rest.status).toBe(200);
      expectNoSecret(`${runId} REST result`, JSON.stringify(rest.body));
      const page = await fetch(`${api.url}/admin/runs/${runId}`, { headers: { cookie } });
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('x-echo-key');
      expectNoSecret(`${runId} run page`, html);
    }
    expect(models.length).toBeGreaterThan(0);
    const prompts = models.flatMap((model) => model.doGenerateCalls.map((call) => JSON.stringify(call.prompt)));
    expect(prompts.some((prompt) => prompt.includes('x-echo-key'))).toBe(true);
    for (const prompt of prompts) expectNoSecret('a model prompt', prompt);

    // The warmer cached the server's tools with the quoted header masked.
    const quoted = echoEntry.tools.find((tool) => tool.name === 'echo_headers')?.description ?? '';
    expect(quoted).toContain('x-echo-key');
    expect(quoted).toContain('[redacted]');

    const keys = await dumpKeys(ctx.redis, ctx.prefix);
    expect([...keys.keys()].some((key) => key.includes('echo-invoke'))).toBe(true);
    for (const [key, value] of keys) expectNoSecret(`redis key ${key}`, value);
  });
});
