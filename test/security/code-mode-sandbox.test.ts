import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { createCodeSandbox, type ScriptHost } from '@agentq/code-sandbox';
import { runResultSchema, type RunSpecInput } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport, readCounterNotes } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from '../worker/helpers/catalog.js';
import { enqueueRun, runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

// What model-written code can and cannot do: it stays inside the sandbox, it ends within its caps
// without holding up the process, and through it no approval is skipped and no secret unmasked.

function recordingHost(names: string[] = ['read']): ScriptHost & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    toolNames: names,
    callTool: async (name) => {
      calls.push(name);
      return { from: name };
    },
  };
}

describe('the code sandbox holds', () => {
  const sandbox = createCodeSandbox({ limits: { timeoutMs: 5_000, maxToolCalls: 20 } });
  afterAll(() => sandbox.close());

  const run = (code: string, host: ScriptHost = recordingHost()) => sandbox.run({ code, host });

  it('gives the script nothing of the host: no process, require, module loading, network or timers', async () => {
    const outcome = await run(`
      const names = ['process', 'require', 'module', 'globalThis.process', 'fetch', 'XMLHttpRequest',
        'WebSocket', 'setTimeout', 'setInterval', 'setImmediate', 'queueMicrotask', 'Buffer', 'std', 'os',
        'hostCall', 'hostLog', 'Deno', 'Bun'];
      const seen = {};
      for (const name of names) {
        try { seen[name] = typeof eval(name); } catch (error) { seen[name] = 'throws'; }
      }
      return seen;`);
    expect(outcome.ok).toBe(true);
    const seen = (outcome as { value: Record<string, string> }).value;
    for (const [name, type] of Object.entries(seen))
      expect([name, type]).toEqual([name, expect.stringMatching(/^(undefined|throws)$/)]);
  });

  it('constructor and prototype tricks reach only the sandbox global', async () => {
    const outcome = await run(`
      const viaFunction = (function () {}).constructor.constructor('return this')();
      const viaTool = tools.read.constructor.constructor('return this')();
      const viaAsync = (async () => {}).constructor('return this')();
      const viaError = new Error('x').constructor.constructor('return typeof process')();
      const proto = Object.getPrototypeOf(tools.read);
      return {
        same: viaFunction === globalThis && viaTool === globalThis,
        asyncType: typeof viaAsync,
        viaError,
        protoHasHost: Object.getOwnPropertyNames(proto).filter((key) => /host|process|require/i.test(key)),
        globals: Object.getOwnPropertyNames(globalThis).filter((key) => /host|process|require|fetch/i.test(key)),
      };`);
    expect(outcome).toMatchObject({
      ok: true,
      value: { same: true, viaError: 'undefined', protoHasHost: [], globals: [] },
    });
  });

  it('refuses import(), and eval of a tool function yields nothing of the host', async () => {
    expect(await run(`return await import('node:fs')`)).toMatchObject({ ok: false, code: 'EXEC_SCRIPT_ERROR' });
    expect(await run(`return await import('data:text/javascript,export default 1')`)).toMatchObject({ ok: false });
    // eval of a tool function hands back the function itself; its source re-evaluated is a copy
    // whose helper is not in reach, so calling it fails and reaches no tool.
    const host = recordingHost();
    const evaluated = await run(
      `const same = eval(tools.read) === tools.read;
       const copy = eval('(' + String(tools.read) + ')');
       try { await copy({}); return [same, 'ran']; } catch (error) { return [same, error.name]; }`,
      host,
    );
    expect(evaluated).toMatchObject({ ok: true, value: [true, 'ReferenceError'] });
    expect(host.calls).toEqual([]);
    expect(await run(`return typeof hostCall`)).toMatchObject({ ok: true, value: 'undefined' });
  });

  it('a polluted prototype or a replaced JSON stays in that script', async () => {
    const host = recordingHost();
    await run(
      `Object.prototype.polluted = 1; JSON.parse = () => 'forged'; JSON.stringify = () => '"forged"'; return 1`,
      host,
    );
    expect(await run(`return [({}).polluted === undefined, JSON.parse('2'), await tools.read({})]`, host)).toEqual(
      expect.objectContaining({ ok: true, value: [true, 2, { from: 'read' }] }),
    );
  });

  it('an endless loop ends on its compute cap while the process keeps serving its event loop', async () => {
    let ticks = 0;
    const ticker = setInterval(() => (ticks += 1), 5);
    try {
      const normal = sandbox.run({ code: 'return await tools.read({})', host: recordingHost() });
      const outcome = await run('while (true) {}');
      expect(outcome).toMatchObject({ ok: false, code: 'EXEC_CPU_LIMIT' });
      // Another script on the same sandbox finished normally.
      expect(await normal).toMatchObject({ ok: true, value: { from: 'read' } });
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(ticker);
    }
  });

  it('a 1 GB allocation fails on the memory cap', async () => {
    expect(await run('const big = new Uint8Array(1024 * 1024 * 1024); return big.length')).toMatchObject({
      ok: false,
      code: 'EXEC_MEMORY_LIMIT',
    });
    expect(await run('const a = []; while (true) a.push({ n: a.length }); ')).toMatchObject({ ok: false });
    expect(await run('function f() { return f() + 1 } return f()')).toMatchObject({
      ok: false,
      code: 'EXEC_MEMORY_LIMIT',
    });
  });

  it('a flood of tool calls stops at the budget, and the host never sees more', async () => {
    const host = recordingHost();
    const outcome = await run('while (true) { try { await tools.read({}) } catch {} }', host);
    expect(outcome).toMatchObject({ ok: false, code: 'EXEC_TOOL_CALL_LIMIT', toolCalls: 20 });
    expect(host.calls.length).toBeLessThanOrEqual(20);
  });

  it('a huge return value is refused, not copied out', async () => {
    expect(await run(`return 'x'.repeat(10 * 1024 * 1024)`)).toMatchObject({ ok: false, code: 'EXEC_OUTPUT_INVALID' });
    expect(await run(`const a = {}; a.self = a; return a`)).toMatchObject({ ok: false, code: 'EXEC_OUTPUT_INVALID' });
  });

  it('a script stuck in costly builtins past its time is stopped from outside, and the next one runs', async () => {
    const slow = createCodeSandbox({ limits: { timeoutMs: 1_000, maxBlockingMs: 250 }, killGraceMs: 500 });
    try {
      const outcome = await slow.run({
        code: `const parts = []; while (true) parts.push('x'.repeat(1e6)); `,
        host: recordingHost(),
      });
      expect(outcome.ok).toBe(false);
      expect(['EXEC_TIMEOUT', 'EXEC_CPU_LIMIT', 'EXEC_MEMORY_LIMIT']).toContain(outcome.ok ? '' : outcome.code);
      expect(await slow.run({ code: 'return 1 + 1', host: recordingHost() })).toMatchObject({ ok: true, value: 2 });
    } finally {
      await slow.close();
    }
  });

  it('a script cannot open a connection: no socket API exists, and the listener sees nothing', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections += 1;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const outcome = await run(`
        const attempts = [];
        const tryIt = async (label, fn) => { try { await fn(); attempts.push(label + ':ok'); } catch (e) { attempts.push(label + ':' + e.name); } };
        await tryIt('fetch', () => fetch('http://127.0.0.1:${port}/'));
        await tryIt('xhr', () => new XMLHttpRequest());
        await tryIt('ws', () => new WebSocket('ws://127.0.0.1:${port}/'));
        await tryIt('import', () => import('node:net'));
        await tryIt('require', () => require('node:http'));
        return attempts;`);
      expect(outcome.ok).toBe(true);
      for (const attempt of (outcome as { value: string[] }).value) expect(attempt).not.toMatch(/:ok$/);
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('code mode in a worker', () => {
  const secret = `code-${randomUUID()}`;
  const secretName = `AGENTQ_SECRET_CODE_${randomUUID().replace(/-/g, '').slice(0, 8).toUpperCase()}`;
  let ctx: TestContext;
  let queue: Queue;
  let worker: AgentWorker;
  let folder: string;
  let counterFile: string;

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-code-security-'));
    counterFile = join(folder, 'counter.log');
    const transport = fixtureStdioTransport({ counterFile, tools: 1, echoHeaders: true });
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: {
        id: 'fx',
        transport: { ...transport, env: { FIXTURE_ECHO_KEY: `\${${secretName}}` } },
        timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
      },
    });
    queue = runsQueue(ctx);
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { AGENTQ_CODE_MODE: 'allowed', [secretName]: secret },
    });
  }, 120_000);

  afterAll(async () => {
    await worker?.close();
    await queue?.obliterate({ force: true });
    await queue?.close();
    await ctx?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const spec = (code: string, extra: Partial<RunSpecInput> = {}): RunSpecInput => ({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['fx'],
      settings: { codeMode: true },
      script: [{ toolCalls: [{ toolName: 'tool_exec', input: { code } }] }, { text: 'done' }],
    },
    input: { prompt: 'run the script' },
    ...extra,
  });

  it('a gated tool called from a script is refused and never runs, and no approval is asked', async () => {
    const runId = `gated-${randomUUID()}`;
    await enqueueRun(queue, {
      runId,
      spec: spec(`return await tools.mcp__fx__counterIncrement({ note: '${runId}' })`, {
        approval: { requireFor: ['mcp__fx__counterIncrement'] },
      }),
    });
    const finished = await waitForJob(queue, runId, 90_000);
    expect(finished.state, finished.failedReason).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    const exec = result.toolCalls.find((call) => call.toolName === 'tool_exec');
    expect(exec?.output).toMatchObject({ ok: false, code: 'EXEC_SCRIPT_ERROR' });
    expect((exec?.output as { message: string }).message).toMatch(
      /^Error: TOOL_NEEDS_APPROVAL: .*Call mcp__fx__counterIncrement directly/,
    );
    expect(result.toolCalls.some((call) => call.approval !== undefined)).toBe(false);
    expect(await readCounterNotes(counterFile)).not.toContain(runId);
    expect(await ctx.redis.hlen(keyNames(ctx.prefix).runToolResults(runId))).toBe(1);
  });

  it('a secret in a tool result stays masked through the script, whatever it does with it', async () => {
    const runId = `secret-${randomUUID()}`;
    await enqueueRun(queue, {
      runId,
      spec: spec(`
        const echoed = await tools.mcp__fx__echoHeaders({});
        console.log(echoed);
        return { echoed, reversed: echoed.split('').reverse().join(''), upper: echoed.toUpperCase() };`),
    });
    const finished = await waitForJob(queue, runId, 90_000);
    expect(finished.state, finished.failedReason).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    const exec = result.toolCalls.find((call) => call.toolName === 'tool_exec');
    expect(exec?.output).toMatchObject({ ok: true });
    const shown = JSON.stringify(exec?.output);
    // The result did carry the echoed variable, masked.
    expect(shown).toContain('FIXTURE_ECHO_KEY');
    const reversed = secret.split('').reverse().join('');
    for (const form of [secret, reversed, secret.toUpperCase(), secret.slice(5)]) expect(shown).not.toContain(form);
    const journal = JSON.stringify(await ctx.redis.hgetall(keyNames(ctx.prefix).runToolResults(runId)));
    for (const form of [secret, reversed, secret.toUpperCase(), secret.slice(5)]) expect(journal).not.toContain(form);
  });
});
