import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { startApi, type RunningApi } from '@agentq/api';
import { runResultSchema, silentLogger, type ServerDefinitionInput } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  send,
  startLoopbackServer,
  type LoopbackServer,
} from '../../packages/builtin-tools/src/test-support/loopback-server.js';
import { TEST_TOKEN } from '../api/start-test-api.js';
import { startHttpFixture, type HttpFixture } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { failureCode, queueIdle, refreshNow } from '../warmer/refresh-helpers.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import { enqueueRun, fastTuning, runsQueue, testConfig, waitForJob } from '../worker/helpers/worker-harness.js';
import { adminLogin } from './admin-helpers.js';

// A list of 20 000 tools is megabytes over loopback: bounds for a busy machine, not measures.
vi.setConfig({ testTimeout: 300_000, hookTimeout: 120_000 });

describe('budgets on what an MCP server lists', () => {
  let harness: WarmerHarness;
  let api: RunningApi;
  let directory: string;
  const fixtures: HttpFixture[] = [];
  const timeouts = { connectMs: 30_000, listMs: 120_000, callMs: 5_000 };

  beforeAll(async () => {
    harness = await createWarmerHarness();
    directory = await mkdtemp(join(tmpdir(), 'agentq-budgets-'));
    await harness.startWarmer();
    api = await startApi({
      config: harness.config({ AGENTQ_API_TOKEN: TEST_TOKEN, AGENTQ_API_PORT: '0' }),
      logger: silentLogger(),
    });
  });

  afterAll(async () => {
    await api?.close();
    await harness?.close();
    await Promise.allSettled(fixtures.map((fixture) => fixture.stop()));
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  async function warmedFixture(serverId: string): Promise<{ faultFile: string; tools: string[] }> {
    const faultFile = join(directory, `${serverId}.faults`);
    const fixture = await startHttpFixture({ tools: 3, faultFile });
    fixtures.push(fixture);
    const definition: ServerDefinitionInput = {
      id: serverId,
      transport: { type: 'streamable-http', url: fixture.url },
      timeouts,
    };
    await harness.putServer(definition);
    const entry = await waitFor(() => harness.entry(serverId), { what: `${serverId} warmed` });
    await queueIdle(harness.queue);
    return { faultFile, tools: entry.tools.map((tool) => tool.name) };
  }

  /** Switches `faults` on in the server's fixture and refreshes it now. */
  async function breakAndRefresh(serverId: string, faultFile: string, faults: string) {
    await writeFile(faultFile, faults);
    return await refreshNow({ queue: harness.queue, events: harness.events, serverId, reason: 'on-demand' });
  }

  it('refuses a list of 20 000 tools with the limit on the status, keeps the last good list, and the catalog page still answers', async () => {
    const { faultFile, tools } = await warmedFixture('flood');
    const good = await harness.entry('flood');
    const result = await breakAndRefresh('flood', faultFile, 'flood');
    expect(result.state).toBe('failed');
    expect(failureCode(result)).toBe('MCP_LIST_TOO_LARGE');

    const status = await harness.status('flood');
    expect(status).toMatchObject({ state: 'stale', errorCode: 'MCP_LIST_TOO_LARGE', toolCount: tools.length });
    // The limit and what the server sent, both named.
    expect(status?.error).toContain(String(harness.config().maxToolsPerServer));
    expect(status?.error).toContain(String(20_000 + tools.length));
    const entry = await harness.entry('flood');
    expect(entry?.tools.map((tool) => tool.name)).toEqual(tools);
    expect(entry?.version).toBe(good?.version);

    const cookie = await adminLogin(api.url, TEST_TOKEN);
    const page = await fetch(`${api.url}/admin/catalog`, { headers: { cookie } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('flood');
  });

  it('cuts an over-long description with a note and leaves out only the tool whose schema nests too deep', async () => {
    const { faultFile, tools } = await warmedFixture('odd-tools');
    const result = await breakAndRefresh('odd-tools', faultFile, 'long-description deep-schema');
    expect(result.state).toBe('completed');
    const entry = await harness.entry('odd-tools');
    const names = entry?.tools.map((tool) => tool.name) ?? [];
    expect(names).toEqual([...tools, 'long_description_tool'].sort());
    const long = entry?.tools.find((tool) => tool.name === 'long_description_tool');
    expect(long?.description?.length).toBe(8_000);
    expect(long?.description?.endsWith('… [truncated]')).toBe(true);
    const status = await harness.status('odd-tools');
    expect(status?.state).toBe('connected');
    expect(status?.skippedTools?.map((skipped) => skipped.name)).toEqual(['deep_schema_tool']);
  });
});

describe('the tool calls of one model step', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let site: LoopbackServer;

  beforeAll(async () => {
    ctx = createTestContext();
    site = await startLoopbackServer((_request, response) => send(response, 200, 'text/plain', 'counted'));
    worker = await startAgentWorker({
      config: testConfig({
        redisUrl: ctx.redisUrl,
        prefix: ctx.prefix,
        env: { AGENTQ_WEB_FETCH_ALLOW_HOSTS: '127.0.0.1', AGENTQ_MAX_TOOL_CALLS_PER_STEP: '7' },
      }),
      logger: silentLogger(),
      env: {},
      tuning: fastTuning,
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await site?.close();
    await ctx?.close();
  });

  it('makes exactly the cap of 1 000 web_fetch calls; the others get a tool error and no request', async () => {
    await enqueueRun(queue, {
      runId: 'flood-step',
      spec: {
        assistant: {
          model: 'scripted:test',
          settings: { webFetch: true },
          script: [
            {
              toolCalls: Array.from({ length: 1_000 }, (_, index) => ({
                toolName: 'web_fetch',
                input: { url: `${site.origin}/page-${index}` },
              })),
            },
            // The next step has a budget of its own.
            { toolCalls: [{ toolName: 'web_fetch', input: { url: `${site.origin}/next` } }] },
            { text: 'done' },
          ],
        },
        input: { prompt: 'fetch everything' },
      },
    });
    const finished = await waitForJob(queue, 'flood-step', 120_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls).toHaveLength(1_001);
    const executed = result.toolCalls.filter((call) => !call.isError);
    expect(executed).toHaveLength(8);
    expect(site.requests).toHaveLength(8);
    expect(site.requests.map((request) => request.path).sort()).toEqual(
      ['/next', ...Array.from({ length: 7 }, (_, index) => `/page-${index}`)].sort(),
    );
    const refused = result.toolCalls.filter((call) => call.isError);
    expect(refused).toHaveLength(993);
    expect(JSON.stringify(refused[0])).toContain('AGENTQ_MAX_TOOL_CALLS_PER_STEP');
  });
});
