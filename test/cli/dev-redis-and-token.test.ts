import { mkdtemp, rm, stat, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@agentq/cli';
import { QUEUE_NAMES } from '@agentq/shared';
import { createRedisConnection } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../api/start-test-api.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

/** Runs `agentq dev` in this process until `stop` is called; collects what it prints. */
function startDev(args: string[], env: Record<string, string | undefined>) {
  let output = '';
  let release: () => void = () => {};
  const until = new Promise<void>((resolve) => (release = resolve));
  const io = {
    out: (text: string) => (output += `${text}\n`),
    err: (text: string) => (output += `${text}\n`),
    env,
  };
  // `until` is not a flag: devCommand takes it from the options commander builds, so hand it over.
  const exited = import('../../apps/cli/src/commands/dev-command.js').then(({ devCommand }) =>
    devCommand(io, {
      port: '0',
      import: false,
      demo: false,
      sampleKb: false,
      sandbox: env.SANDBOX ?? 'sandbox',
      ...parseDevArgs(args),
      until,
    }).catch((error: unknown) => {
      output += `thrown: ${(error as { code?: string }).code ?? ''} ${(error as Error).message}\n`;
      return -1;
    }),
  );
  const banner = async () =>
    await eventually(
      async () => (/Inbox\s+http:\/\//.test(output) || output.includes('thrown:') ? output : undefined),
      90_000,
      'agentq dev to start',
    );
  return { banner, output: () => output, stop: async () => (release(), await exited) };
}

function parseDevArgs(args: string[]) {
  const options: {
    redis?: string;
    privateRedis?: boolean;
    rotateToken?: boolean;
    stateDir?: string;
    import?: boolean;
    sampleKb?: boolean;
    port?: string;
  } = {};
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    if (arg === '--redis') options.redis = args[++index];
    else if (arg === '--private-redis') options.privateRedis = true;
    else if (arg === '--rotate-token') options.rotateToken = true;
    else if (arg === '--state-dir') options.stateDir = args[++index];
    else if (arg === '--import') options.import = true;
    else if (arg === '--sample-kb') options.sampleKb = true;
    else if (arg === '--port') options.port = args[++index];
  }
  return options;
}

const tokenOf = (output: string) => /export TOKEN=(\S+)/.exec(output)?.[1];

describe('agentq dev: which Redis, and a token that stays', () => {
  let ctx: TestContext;
  let stateDir: string;
  let sandbox: string;
  let env: Record<string, string | undefined>;

  beforeAll(async () => {
    ctx = createTestContext();
    stateDir = await mkdtemp(join(tmpdir(), 'agentq-dev-state-'));
    sandbox = await mkdtemp(join(tmpdir(), 'agentq-dev-sandbox-'));
    // No AGENTQ_API_TOKEN: the dev token is in play.
    env = {
      PATH: process.env.PATH,
      AGENTQ_PREFIX: ctx.prefix,
      LOG_LEVEL: 'silent',
      SANDBOX: sandbox,
    };
  });

  afterAll(async () => {
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    }
    await rm(stateDir, { recursive: true, force: true });
    await rm(sandbox, { recursive: true, force: true });
    await ctx.close();
  });

  it('names the Redis it chose with its version, warns about keys that are not its own, and keeps its token until rotated', async () => {
    // A key of someone else on the same Redis.
    await ctx.redis.set(`${ctx.prefix}-someone-else`, '1');
    try {
      const first = startDev(['--redis', ctx.redisUrl, '--state-dir', stateDir], env);
      const output = await first.banner();
      const api = /Inbox\s+(http:\/\/[^/\s]+)\//.exec(output)?.[1];
      expect(await first.stop()).toBe(0);
      expect(output).toMatch(/Redis\s+redis:\/\/\S+ \(from --redis; Redis \d+\.\d+/);
      expect(output).toMatch(/^warning: .*not agentq's/m);
      const token = tokenOf(output);
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      const file = join(stateDir, 'dev-token');
      expect((await readFile(file, 'utf8')).trim()).toBe(token);
      expect((await stat(file)).mode & 0o777).toBe(0o600);
      expect(api).toBeDefined();

      // A restart keeps it; --rotate-token replaces it.
      const second = startDev(['--redis', ctx.redisUrl, '--state-dir', stateDir], env);
      const kept = tokenOf(await second.banner());
      expect(await second.stop()).toBe(0);
      expect(kept).toBe(token);
      const third = startDev(['--redis', ctx.redisUrl, '--state-dir', stateDir, '--rotate-token'], env);
      const rotated = tokenOf(await third.banner());
      expect(await third.stop()).toBe(0);
      expect(rotated).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(rotated).not.toBe(token);
      expect((await readFile(file, 'utf8')).trim()).toBe(rotated);
    } finally {
      await ctx.redis.del(`${ctx.prefix}-someone-else`);
    }
  }, 300_000);

  it('never writes the token through a link planted at its path', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentq-dev-link-'));
    const target = join(dir, 'target');
    await writeFile(target, 'not a token\n');
    await symlink(target, join(dir, 'dev-token'));
    const dev = startDev(['--redis', ctx.redisUrl, '--state-dir', dir], env);
    const token = tokenOf(await dev.banner());
    expect(await dev.stop()).toBe(0);
    expect(await readFile(target, 'utf8')).toBe('not a token\n');
    expect((await readFile(join(dir, 'dev-token'), 'utf8')).trim()).toBe(token);
    await rm(dir, { recursive: true, force: true });
  }, 120_000);

  it('--private-redis starts an empty throwaway Redis and stops it on exit; without redis-server it says so', async () => {
    const dev = startDev(['--private-redis', '--state-dir', stateDir], { ...env, REDIS_URL: ctx.redisUrl });
    const output = await dev.banner();
    const url = /Redis\s+(redis:\/\/127\.0\.0\.1:\d+) \(private redis-server/.exec(output)?.[1];
    expect(url, output).toBeDefined();
    expect(output).toContain('no other keys');
    expect(output).not.toMatch(/^warning: .*not agentq's/m);
    // The hints for another terminal carry that Redis.
    expect(output).toContain(`REDIS_URL=${url}`);
    expect(await dev.stop()).toBe(0);
    const probe = createRedisConnection({ url: url as string, role: 'producer', name: 'probe' });
    probe.on('error', () => {});
    await expect(probe.ping()).rejects.toThrow();
    probe.disconnect();

    const missing = startDev(['--private-redis', '--state-dir', stateDir], { ...env, PATH: '/nonexistent' });
    expect(await missing.stop()).toBe(-1);
    expect(missing.output()).toMatch(/^thrown: UNAVAILABLE .*redis-server/m);
  }, 120_000);

  it('prints the Knowledge line only when the sample knowledge base is queued, and every suggested command with the env that reaches this Redis, prefix and API', async () => {
    const without = startDev(['--redis', ctx.redisUrl, '--state-dir', stateDir], env);
    const plain = await without.banner();
    expect(await without.stop()).toBe(0);
    expect(plain).not.toContain('Knowledge');
    expect(plain).not.toContain('kb search');

    const withKb = startDev(['--redis', ctx.redisUrl, '--state-dir', stateDir, '--sample-kb'], env);
    const output = await withKb.banner();
    expect(await withKb.stop()).toBe(0);
    const api = /Inbox\s+(http:\/\/[^/\s]+)\//.exec(output)?.[1];
    // Port 0 picked a free port: not 3000, so the hints name the API too.
    expect(api).not.toBe('http://127.0.0.1:3000');
    const prefix = `AGENTQ_API_URL=${api} AGENTQ_PREFIX=${ctx.prefix} npx agentq`;
    expect(output).toContain(
      `Knowledge    agentq-docs (the docs folder; try \`${prefix} kb search agentq-docs approval\`)`,
    );
    expect(output).toContain(`  ${prefix} run --demo --wait`);
    expect(output).toContain(`\`${prefix} approvals approve <id>\``);
    // No command hint without the prefix.
    const hints = output.split('\n').filter((line) => /\b(?:npx agentq|npm run agentq --)\s/.test(line));
    expect(hints.length).toBe(3);
    for (const line of hints) expect(line).toContain(`${prefix} `);
  }, 300_000);

  it('refuses a busy port before it writes anything to Redis: PORT_IN_USE, exit 4', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const prefix = `${ctx.prefix}-busy`;
    try {
      for (const [args, extra, setting] of [
        [['--port', String(port)], {}, 'AGENTQ_API_PORT'],
        [[], { AGENTQ_WORKER_HEALTH_PORT: String(port) }, 'AGENTQ_WORKER_HEALTH_PORT'],
        [[], { AGENTQ_WARMER_HEALTH_PORT: String(port) }, 'AGENTQ_WARMER_HEALTH_PORT'],
      ] as const) {
        const dev = startDev(['--redis', ctx.redisUrl, '--state-dir', stateDir, '--import', '--sample-kb', ...args], {
          ...env,
          ...extra,
          AGENTQ_PREFIX: prefix,
        });
        expect(await dev.stop()).toBe(-1);
        expect(dev.output()).toMatch(new RegExp(`^thrown: PORT_IN_USE .*127\\.0\\.0\\.1:${port}.*${setting}`, 'm'));
        // No servers imported, no queue or knowledge base created.
        expect(await ctx.redis.keys(`${prefix}*`)).toEqual([]);
      }
      const lines: string[] = [];
      const code = await runCli(['node', 'agentq', 'dev', '--redis', ctx.redisUrl, '--port', String(port)], {
        out: (text) => lines.push(text),
        err: (text) => lines.push(text),
        env: { ...env, AGENTQ_PREFIX: prefix },
      });
      expect(code).toBe(4);
      expect(lines.join('\n')).toMatch(/^error \[PORT_IN_USE\]: .*--port or AGENTQ_API_PORT/m);
      expect(await ctx.redis.keys(`${prefix}*`)).toEqual([]);
    } finally {
      await new Promise((resolve) => busy.close(resolve));
      const left = await ctx.redis.keys(`${prefix}*`);
      if (left.length > 0) await ctx.redis.del(...left);
    }
  }, 120_000);

  it('refuses --redis together with --private-redis', async () => {
    const lines: string[] = [];
    const code = await runCli(['node', 'agentq', 'dev', '--redis', ctx.redisUrl, '--private-redis'], {
      out: (text) => lines.push(text),
      err: (text) => lines.push(text),
      env,
    });
    expect(code).toBe(2);
    expect(lines.join('\n')).toContain('USAGE');
  });
});
