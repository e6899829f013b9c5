import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { McpClientPool } from '@agentq/agent-worker';
import { connectMcpServer, listServerTools } from '@agentq/mcp-connect';
import { createMcpToolEntry } from '@agentq/registry';
import { AgentqError, serverDefinitionSchema, silentLogger, type ServerDefinition } from '@agentq/shared';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  fixtureStdioTransport,
  processAlive,
  readPids,
  startHttpFixture,
  type HttpFixture,
} from '../fixtures/mcp/spawn-fixture.js';
import { listMessageLimit } from '../../apps/catalog-warmer/src/cache/catalog-budget.js';
import { eventually } from '../helpers/eventually.js';

// Fixture processes start under tsx on a busy machine: bounds, not measures.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 60_000 });

/** The text budget of one result here; the message cap is 4 × this + 1 MiB (1 114 112 bytes). */
const resultMaxBytes = 16_384;
const messageCap = 4 * resultMaxBytes + 1_048_576;
/** Generous: a call that is not refused while it is read times out instead, with another code. */
const timeouts = { connectMs: 60_000, listMs: 60_000, callMs: 30_000 };

let directory: string;
let pool: McpClientPool | undefined;
const fixtures: HttpFixture[] = [];

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agentq-message-cap-'));
});

afterEach(async () => {
  await pool?.close();
  pool = undefined;
  await Promise.allSettled(fixtures.splice(0).map((fixture) => fixture.stop()));
});

afterAll(async () => {
  if (directory) await rm(directory, { recursive: true, force: true });
});

function definitionOf(id: string, transport: unknown): ServerDefinition {
  return serverDefinitionSchema.parse({ id, transport, timeouts });
}

function newPool(): McpClientPool {
  pool = new McpClientPool({ logger: silentLogger(), allowPrivateFetch: true, toolResultMaxBytes: resultMaxBytes });
  return pool;
}

/** `huge_result` as the model calls it: through the registry entry, over the pool. */
async function callHuge(definition: ServerDefinition, input: Record<string, unknown>): Promise<unknown> {
  const entry = createMcpToolEntry({
    definition,
    tool: { name: 'huge_result', inputSchema: { type: 'object' } } as never,
    wireName: 'huge_result',
    caller: pool as McpClientPool,
    maxResultBytes: resultMaxBytes,
  });
  const execute = entry.tool.execute as (input: unknown, options: unknown) => Promise<unknown>;
  return await execute(input, { toolCallId: 'call-1', messages: [] }).catch((error: unknown) => error);
}

async function counter(definition: ServerDefinition): Promise<unknown> {
  const result = await pool?.callTool({
    serverId: definition.id,
    definition,
    toolName: 'counter_increment',
    input: {},
  });
  return result?.content;
}

function expectRefused(outcome: unknown): void {
  expect(AgentqError.isInstance(outcome) && outcome.code).toBe('MCP_RESULT_TOO_LARGE');
  expect((outcome as Error).message).toContain('AGENTQ_TOOL_RESULT_MAX_BYTES');
  expect((outcome as Error).message).toContain(String(messageCap));
}

/** A small answer comes back whole; one over the result budget and under the message cap is cut. */
async function expectWithinCapWorks(definition: ServerDefinition): Promise<void> {
  expect(await callHuge(definition, { bytes: 1_000 })).toBe('x'.repeat(1_000));
  const bytes = 600_000;
  const cut = await callHuge(definition, { bytes });
  expect(typeof cut).toBe('string');
  expect((cut as string).startsWith('x'.repeat(resultMaxBytes))).toBe(true);
  expect(cut).toContain(
    `[tool result truncated: ${bytes - resultMaxBytes} of ${bytes} bytes dropped; the limit is ${resultMaxBytes} bytes (AGENTQ_TOOL_RESULT_MAX_BYTES)]`,
  );
  expect(pool?.size).toBe(1);
}

describe('the cap on one message answering a tool call', () => {
  const httpCases = [
    { name: 'a Streamable HTTP JSON answer', sse: false, format: 'json' },
    { name: 'a Streamable HTTP event', sse: false, format: 'sse' },
    { name: 'a legacy SSE event', sse: true, format: 'sse' },
  ] as const;

  for (const { name, sse, format } of httpCases) {
    it(`refuses ${name} that never ends while reading it, and the next call opens a fresh connection`, async () => {
      const fixture = await startHttpFixture({ hugeResult: true, sse });
      fixtures.push(fixture);
      const definition = definitionOf('huge', { type: sse ? 'sse' : 'streamable-http', url: fixture.url });
      newPool();
      await expectWithinCapWorks(definition);
      const before = await fixture.stats();

      expectRefused(await callHuge(definition, { format }));
      // The client stopped reading and hung up, long before the server ran out of anything to send.
      await eventually(async () => (await fixture.stats()).endlessClosed === 1, 'the client to hang up');
      const after = await fixture.stats();
      expect(after.endlessStarted).toBe(1);
      expect(after.endlessBytes).toBeLessThan(32 * 1024 * 1024);
      expect(pool?.size).toBe(0);

      // The broken connection is gone: the next call initializes a new session and works.
      expect(await counter(definition)).toEqual([{ type: 'text', text: 'counter is 1' }]);
      expect((await fixture.stats()).initializeCount).toBe(before.initializeCount + 1);
    });
  }

  it('refuses a stdio line that never ends, ends the server process, and the next call starts a new one', async () => {
    const pidFile = join(directory, 'stdio.pids');
    const definition = definitionOf('huge-stdio', fixtureStdioTransport({ hugeResult: true, pidFile }));
    newPool();
    await expectWithinCapWorks(definition);
    const [first] = await readPids(pidFile);

    expectRefused(await callHuge(definition, {}));
    expect(pool?.size).toBe(0);
    await eventually(() => first !== undefined && !processAlive(first), 'the server process to end');

    expect(await counter(definition)).toEqual([{ type: 'text', text: 'counter is 1' }]);
    expect(await readPids(pidFile)).toHaveLength(2);
  });
});

describe("the warmer's cap on one stdio message", () => {
  it('refuses a tools/list line past it as MCP_LIST_TOO_LARGE and ends the server process', async () => {
    const pidFile = join(directory, 'list.pids');
    const stdio = fixtureStdioTransport({ floodTools: 20_000, pidFile });
    const definition = definitionOf('flood-stdio', { ...stdio, env: { FIXTURE_FLOOD: '1' } });
    // As the warmer builds it for AGENTQ_MAX_CATALOG_ENTRY_BYTES=250000.
    const connection = await connectMcpServer({
      definition,
      logger: silentLogger(),
      messageLimit: listMessageLimit({ maxEntryBytes: 250_000 }),
    });
    try {
      const outcome = await listServerTools({
        client: connection.client,
        serverId: definition.id,
        timeoutMs: timeouts.listMs,
      }).catch((error: unknown) => error);
      expect(AgentqError.isInstance(outcome) && outcome.code).toBe('MCP_LIST_TOO_LARGE');
      expect((outcome as Error).message).toContain('AGENTQ_MAX_CATALOG_ENTRY_BYTES');
      const [pid] = await readPids(pidFile);
      await eventually(() => pid !== undefined && !processAlive(pid), 'the server process to end');
    } finally {
      await connection.close();
    }
  });
});
