import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient } from '@agentq/client';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { eventually } from '../api/start-test-api.js';
import { runAgentq, spawnAgentq } from './run-agentq.js';

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
    const noPrompt = await runAgentq(['run'], env);
    expect(noPrompt.code).toBe(2);
    expect(noPrompt.stderr).toContain('USAGE');
    noStack(noPrompt.stderr);
  });

  it('reports invalid input, unknown ids and an unreachable Redis with codes, without stack traces', async () => {
    const badSpec = await runAgentq(['run', 'hi', '--model', 'scripted:custom'], env);
    expect(badSpec.code).toBe(2);
    expect(badSpec.stderr).toContain('VALIDATION');
    expect(badSpec.stderr).toContain('assistant.script');
    const missing = await runAgentq(['status', 'no-such-run'], env);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('NOT_FOUND');
    noStack(missing.stderr);
    const down = await runAgentq(['servers', 'list'], { ...env, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(down.code).toBe(5);
    noStack(down.stderr);
    const badConfig = await runAgentq(['servers', 'list'], { ...env, AGENTQ_PREFIX: 'bad prefix' });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('AGENTQ_PREFIX');
  });

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
    expect(catalog.stdout).toContain('never-warmed');
    expect((await runAgentq(['servers', 'remove', 'memory'], env)).code).toBe(0);
    expect((await runAgentq(['catalog', 'memory'], env)).code).toBe(3);
  });

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
      expect((await fetch(`${url}/readyz`)).status).toBe(401);
      expect(
        (await fetch(`${url}/readyz`, { headers: { authorization: 'Bearer cli-test-token-0123456789' } })).status,
      ).toBe(200);

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
        run = spawnAgentq(['run', '--demo', '--wait', '--timeout', '120000'], env);
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
      expect(run.output()).toContain(`agentq approvals approve ${approvalId}`);
      const approve = await runAgentq(['approvals', 'approve', approvalId, '--reason', 'test'], env);
      expect(approve.code).toBe(0);
      const twice = await runAgentq(['approvals', 'deny', approvalId], env);
      expect(twice.code).toBe(4);
      expect(twice.stderr).toContain('ALREADY_DECIDED');
      expect(await run.exited).toBe(0);
      expect(run.output()).toContain('Demo finished');
      expect(run.output()).toContain('Echo: Hello from the agentq demo');
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
});
