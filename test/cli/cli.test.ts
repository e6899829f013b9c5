import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient } from '@agentq/client';
import { digestOf, QUEUE_NAMES } from '@agentq/shared';
import { CatalogStore, ServerSessions } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { eventually } from '../api/start-test-api.js';
import { putServer, writeCatalogEntry } from '../worker/helpers/catalog.js';
import { repositoryRoot, runAgentq, spawnAgentq } from './run-agentq.js';

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at .+:\d+:\d+/);

describe('agentq CLI (child processes, real Redis)', () => {
  let ctx: TestContext;
  let env: Record<string, string>;

  beforeAll(() => {
    ctx = createTestContext();
    env = { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'warn' };
  });

  afterAll(async () => {
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
    await ctx.close();
  });

  it('prints help with every command and exits 0; usage errors exit 2', async () => {
    const help = await runAgentq(['--help'], env);
    expect(help.code).toBe(0);
    for (const command of [
      'dev',
      'warmer',
      'worker',
      'api',
      'indexer',
      'run',
      'approvals',
      'servers',
      'catalog',
      'kb',
    ]) {
      expect(help.stdout).toContain(`  ${command}`);
    }
    const unknown = await runAgentq(['frobnicate'], env);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    // What the CLI prints is never a terminal control sequence, whoever wrote the text.
    const hostile = await runAgentq(['frob\u001b]52;c;ZXZpbA==\u0007'], env);
    expect(hostile.stderr).toContain("unknown command 'frob\\u001b]52;c;ZXZpbA==\\u0007'");
    expect(hostile.stderr).not.toContain('\u001b');
    // A group's unknown subcommand is called unknown, not an excess argument of its default.
    for (const group of ['approvals', 'servers']) {
      const wrong = await runAgentq([group, 'frobnicate'], env);
      expect(wrong.code, group).toBe(2);
      expect(wrong.stderr).toContain(`unknown command 'frobnicate' for 'agentq ${group}'`);
      expect(wrong.stderr).not.toContain('too many arguments');
    }
    // Every numeric option refuses what is not a number, before anything runs.
    for (const args of [
      ['run', 'hi', '--timeout', 'abc', '--wait'],
      ['run', 'hi', '--timeout', '-5'],
      ['run', 'hi', '--max-steps', '2.5'],
      ['run', 'hi', '--max-steps', '0'],
      ['dev', '--port', 'abc'],
      ['dev', '--port', '70000'],
    ]) {
      const refused = await runAgentq(args, env);
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr, args.join(' ')).toMatch(
        /option '--[a-z-]+ <[a-z]+>' argument '.*' is invalid\. expected a whole number/,
      );
      noStack(refused.stderr);
    }
    const noPrompt = await runAgentq(['run'], env);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain('USAGE');
    noStack(noPrompt.stderr);
    // Each case is a child process; on a loaded machine one takes seconds.
  }, 180_000);

  it('reports invalid input, unknown ids and an unreachable Redis with codes, without stack traces', async () => {
    const badSpec = await runAgentq(['run', 'hi', '--model', 'scripted:custom'], env);
    expect(badSpec.code).toBe(2);
    expect(badSpec.stderr).toContain('VALIDATION');
    expect(badSpec.stderr).toContain('assistant.script');
    const missing = await runAgentq(['status', 'no-such-run'], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('NOT_FOUND');
    // It may be the wrong Redis: the error says which one it looked in.
    expect(missing.stderr).toContain(`prefix ${ctx.prefix}`);
    noStack(missing.stderr);
    const down = await runAgentq(['servers', 'list'], { ...env, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(down.code).toBe(5);
    noStack(down.stderr);
    const badConfig = await runAgentq(['servers', 'list'], { ...env, AGENTQ_PREFIX: 'bad prefix' });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('AGENTQ_PREFIX');
    // Each case is a child process; on a loaded machine one takes seconds.
  }, 180_000);

  it('manages servers and shows the catalog', async () => {
    const add = await runAgentq(
      [
        'servers',
        'add',
        'memory',
        '--command',
        'node_modules/.bin/mcp-server-memory',
        '--always-ask',
        'delete_entities',
        '--disabled',
      ],
      env,
    );
    expect(add.code).toBe(0);
    const list = await runAgentq(['servers', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        definition: expect.objectContaining({ id: 'memory', enabled: false, alwaysAsk: ['delete_entities'] }),
      }),
    ]);
    expect((await runAgentq(['servers', 'refresh', 'memory'], env)).code).toBe(4);
    expect((await runAgentq(['servers', 'enable', 'ghost'], env)).code).toBe(3);
    const catalog = await runAgentq(['catalog', 'memory'], env);
    expect(catalog.code).toBe(0);
    expect(catalog.stdout).toContain('memory: disabled');
    // A restart starts a new session generation, which the watcher and every worker pool compare.
    const sessions = new ServerSessions({ redis: ctx.redis, prefix: ctx.prefix });
    expect((await runAgentq(['servers', 'enable', 'memory'], env)).code).toBe(0);
    const before = await sessions.current('memory');
    expect((await runAgentq(['servers', 'restart', 'memory'], env)).code).toBe(0);
    expect(await sessions.current('memory')).not.toBe(before);
    expect((await runAgentq(['servers', 'remove', 'memory'], env)).code).toBe(0);
    expect((await runAgentq(['catalog', 'memory'], env)).code).toBe(3);
    // Each case is a child process; on a loaded machine one takes seconds.
  }, 180_000);

  it('`agentq catalog <server> --version` shows the tool definitions a run was pinned to', async () => {
    const transport = { type: 'stdio' as const, command: '/nonexistent/never-started' };
    const definition = await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'pins', transport } });
    const tools = [{ name: 'look', description: 'Looks.', inputSchema: { type: 'object' as const, required: ['q'] } }];
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools });
    const version = digestOf(tools);
    // A run shown this version pins it; then the server moves on.
    await new CatalogStore({ redis: ctx.redis, prefix: ctx.prefix }).pinSnapshots([{ serverId: 'pins', version }], 60);
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools: [] });
    const shown = await runAgentq(['catalog', 'pins', '--version', version], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`pins version ${version}: 1 tools`);
    expect(shown.stdout).toContain('look: Looks.');
    expect(shown.stdout).toContain('input: {"type":"object","required":["q"]}');
    expect((await runAgentq(['catalog', 'pins', '--version', 'nope'], env)).code).toBe(3);
  }, 180_000);

  it('`agentq dev` answers /healthz, ingests the sample knowledge base, runs the demo through an approval decided with `agentq approvals`, and stops on SIGTERM', async () => {
    const sandbox = await mkdtemp(join(tmpdir(), 'agentq-cli-'));
    let started: ReturnType<typeof spawnAgentq> | undefined;
    const dev = spawnAgentq(['dev', '--port', '0', '--sandbox', sandbox], {
      ...env,
      AGENTQ_API_TOKEN: 'cli-test-token-0123456789',
      AGENTQ_SERVERS_FILE: 'config/servers.yaml',
    });
    try {
      const url = await eventually(
        async () => /Inbox\s+(http:\/\/[^/\s]+)\/admin\/approvals/.exec(dev.output())?.[1],
        60_000,
        `agentq dev to print its URLs; output so far:\n${dev.output()}`,
      );
      expect(dev.output()).toContain('cli-test-token-0123456789');
      expect(dev.output()).toContain('run --demo');
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      // Probes need no token.
      expect((await fetch(`${url}/readyz`)).status).toBe(200);

      // Polling goes through the client library: a CLI process per poll would only slow this down.
      const client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
      let approvalId: string;
      let run: ReturnType<typeof spawnAgentq>;
      try {
        // The demo reads tools from the cache only: wait until the warmer listed server-everything.
        await eventually(
          async () => ((await client.getCatalog('everything')).state === 'connected' ? true : undefined),
          60_000,
          'server-everything to be warmed',
        );
        // As `npm run agentq -- …` starts it: the hints must say that, not a bare `agentq`.
        run = spawnAgentq(['run', '--demo', '--wait', '--timeout', '120000'], {
          ...env,
          npm_lifecycle_event: 'agentq',
        });
        started = run;
        approvalId = await eventually(
          async () => (await client.listPendingApprovals())[0]?.approvalId,
          60_000,
          'the demo run to ask for approval',
        );
      } finally {
        await client.close();
      }
      const listed = await runAgentq(['approvals', 'list'], env);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toContain(approvalId);
      expect(listed.stdout).toContain('mcp__everything__echo');
      await eventually(
        async () => (run.output().includes('waiting for approval') ? true : undefined),
        10_000,
        'progress output',
      );
      // The hints carry the Redis and prefix the run went to, for a terminal that has neither set.
      expect(run.output()).toMatch(
        new RegExp(
          `approve: (REDIS_URL=\\S+ )?AGENTQ_PREFIX=${ctx.prefix} npm run agentq -- approvals approve ${approvalId}`,
        ),
      );
      expect(run.output()).toContain(`Page: http://127.0.0.1:3000/admin/runs/`);
      const approve = await runAgentq(['approvals', 'approve', approvalId, '--reason', 'test'], env);
      expect(approve.code).toBe(0);
      const twice = await runAgentq(['approvals', 'deny', approvalId], env);
      expect(twice.code).toBe(4);
      expect(twice.stderr).toContain('ALREADY_DECIDED');
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('Demo finished');
      expect(run.output()).toContain('Echo: Hello from the agentq demo');
      // Each step once; the call tool_invoke made is nested under it.
      for (const step of [1, 2, 3, 4, 5]) {
        expect(run.output().match(new RegExp(`^  step ${step}\\b`, 'gm')), `step ${step}`).toHaveLength(1);
      }
      expect(run.output()).toMatch(/^ {4}tool_invoke.*\n {6}mcp__everything__getSum/m);
      expect(run.output()).not.toMatch(/^ {4}mcp__everything__getSum/m);
      const kbClient = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
      try {
        // npm start's sample knowledge base: the docs folder, ingested by the dev process's indexer.
        const sample = await eventually(
          async () => {
            const kb = await kbClient.getKb('agentq-docs').catch(() => undefined);
            return kb && kb.version > 0 ? kb : undefined;
          },
          90_000,
          'the sample knowledge base to be ingested',
        );
        expect(sample.documents.map((document) => document.label)).toContain('architecture.md');
        expect((await kbClient.searchKbs({ query: 'approval', kbs: ['agentq-docs'] })).length).toBeGreaterThan(0);
      } finally {
        await kbClient.close();
      }
    } finally {
      if (started?.child.exitCode === null) started.child.kill('SIGTERM');
      dev.child.kill('SIGTERM');
      const code = await dev.exited;
      await rm(sandbox, { recursive: true, force: true });
      expect(code).toBe(0);
    }
  }, 240_000);

  it('`npx agentq` runs the CLI from the checkout', async () => {
    const npx = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      execFile(
        'npx',
        ['--no-install', 'agentq', '--version'],
        { cwd: repositoryRoot, timeout: 60_000 },
        (error, stdout) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout }),
      );
    });
    expect(npx.code).toBe(0);
    expect(npx.stdout.trim()).toBe('0.1.0');
  }, 90_000);

  it('Ctrl-C on `agentq dev` stops it quietly and in order, its MCP servers stopped by the same signal', async () => {
    const sandbox = await mkdtemp(join(tmpdir(), 'agentq-ctrl-c-'));
    const dev = spawnAgentq(
      ['dev', '--port', '0', '--sandbox', sandbox],
      { ...env, AGENTQ_API_TOKEN: 'ctrl-c-test-token-0123456789', AGENTQ_SERVERS_FILE: 'config/servers.yaml' },
      { detached: true },
    );
    try {
      await eventually(
        async () => (/Inbox\s+http:\/\//.test(dev.output()) ? true : undefined),
        60_000,
        `agentq dev to start; output so far:\n${dev.output()}`,
      );
      // Wait until the watchers hold live MCP child processes, which Ctrl-C reaches too.
      const client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
      try {
        await eventually(
          async () => ((await client.getCatalog('everything')).state === 'connected' ? true : undefined),
          60_000,
          'server-everything to be warmed',
        );
      } finally {
        await client.close();
      }
      // A terminal's Ctrl-C signals the whole foreground process group.
      process.kill(-(dev.child.pid as number), 'SIGINT');
      expect(await dev.exited).toBe(0);
      expect(dev.output()).toContain('Stopping');
      // The shared test Redis holds other keys: the start-up warning about them is expected.
      const sharedRedisWarning = /^warning: the Redis at .* not agentq's/;
      const loud = dev
        .output()
        .split('\n')
        .filter((line) => !sharedRedisWarning.test(line))
        .filter((line) => /^warning:|^error:/i.test(line) || /"level":(4|5|6)\d/.test(line));
      expect(loud, dev.output()).toEqual([]);
      expect(
        dev
          .stderr()
          .split('\n')
          .filter((line) => line.trim() !== '' && !sharedRedisWarning.test(line)),
      ).toEqual([]);
    } finally {
      if (dev.child.exitCode === null) process.kill(-(dev.child.pid as number), 'SIGKILL');
      await rm(sandbox, { recursive: true, force: true });
    }
  }, 180_000);
});
