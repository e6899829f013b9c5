import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { AgentWorker } from '@agentq/agent-worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { runsQueue, startTestWorker, waitForJob } from '../worker/helpers/worker-harness.js';

const run = promisify(execFile);
const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const tsxLoaderUrl = import.meta.resolve('tsx');
const tscPath = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');

/** The client and the workspace packages it depends on, packed in dependency order. */
const PACKED = ['packages/shared', 'packages/store', 'packages/kb', 'packages/client'];
const PACKAGE_NAMES = ['@agentq/shared', '@agentq/store', '@agentq/kb', '@agentq/client'];

/** Every file below `dir`, as paths relative to it. */
async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

// A service outside this repository installs the packed client from tarballs, as it would from
// the registry, and runs an agent through it against a worker of this workspace.
describe('the packed @agentq/client', () => {
  let ctx: TestContext;
  let worker: AgentWorker | undefined;
  let workDir: string;
  let serviceDir: string;

  beforeAll(async () => {
    ctx = createTestContext();
    workDir = await mkdtemp(join(tmpdir(), 'agentq-client-pack-'));
    serviceDir = join(workDir, 'service');
    const tarballDir = join(workDir, 'tarballs');
    const packed = await run(
      process.execPath,
      ['--import', tsxLoaderUrl, join(repoRoot, 'scripts', 'pack-package.ts'), ...PACKED, '--out', tarballDir],
      { cwd: repoRoot, maxBuffer: 16 * 1024 * 1024 },
    );
    const tarballs = packed.stdout.trim().split('\n');
    expect(tarballs).toHaveLength(PACKED.length);

    await run('mkdir', ['-p', serviceDir]);
    await writeFile(
      join(serviceDir, 'package.json'),
      JSON.stringify({ name: 'agentq-pack-service', version: '1.0.0', private: true, type: 'module' }),
    );
    // The service's own type-checking needs Node's types, as any TypeScript service on Node has.
    const typesNode = JSON.parse(await readFile(join(repoRoot, 'node_modules/@types/node/package.json'), 'utf8')) as {
      version: string;
    };
    // The cache that `npm ci` filled holds every third-party tarball; only metadata may be fetched.
    await run(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', ...tarballs, `@types/node@${typesNode.version}`],
      { cwd: serviceDir, maxBuffer: 16 * 1024 * 1024 },
    );
    worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
  }, 600_000);

  afterAll(async () => {
    await worker?.close();
    await ctx?.close();
    if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
  });

  it('installs only built files, a manifest that points at them, and no workspace links', async () => {
    for (const name of PACKAGE_NAMES) {
      const installed = join(serviceDir, 'node_modules', name);
      const files = await listFiles(installed);
      expect(files).toContain('package.json');
      expect(files).toContain('dist/index.js');
      expect(files).toContain('dist/index.d.ts');
      const stray = files.filter(
        (file) =>
          !(
            file.startsWith('dist/') ||
            ['package.json', 'README.md', 'LICENSE'].includes(file) ||
            /^scripts\/[a-z0-9-]+\.lua$/.test(file)
          ),
      );
      expect(stray).toEqual([]);
      expect(files.filter((file) => /\.test\.|\.tsbuildinfo$|\.ts$/.test(file) && !file.endsWith('.d.ts'))).toEqual([]);

      const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
      expect(manifest.private).toBeUndefined();
      expect(manifest.devDependencies).toBeUndefined();
      expect(manifest.scripts).toBeUndefined();
      expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', import: './dist/index.js' } });
      const dependencies = Object.entries((manifest.dependencies ?? {}) as Record<string, string>);
      // Nothing that only resolves inside the workspace, and no app of it.
      expect(dependencies.filter(([, spec]) => /^(file|link|workspace):/.test(spec))).toEqual([]);
      expect(
        dependencies.map(([dependency]) => dependency).filter((dependency) => dependency.startsWith('@agentq/')),
      ).toSatisfy((agentq: string[]) => agentq.every((dependency) => PACKAGE_NAMES.includes(dependency)));
    }
  });

  it('type-checks a TypeScript service against the shipped declarations', async () => {
    await writeFile(
      join(serviceDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          // Third-party declarations are theirs to check; ours must still resolve to real types,
          // which the expected errors below prove (an `any` would make them unused).
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['service.ts'],
      }),
    );
    await writeFile(
      join(serviceDir, 'service.ts'),
      [
        "import { createAgentqClient, type AgentqClient } from '@agentq/client';",
        "import type { RunResult } from '@agentq/shared';",
        "const client: AgentqClient = createAgentqClient({ redisUrl: 'redis://127.0.0.1:6379', prefix: 'x' });",
        'async function once(): Promise<string> {',
        "  const { runId } = await client.enqueueRun({ assistant: { model: 'scripted:x' }, input: { prompt: 'hi' } });",
        '  const result: RunResult = await client.waitForRun(runId, { timeoutMs: 1000 });',
        '  return result.text;',
        '}',
        'export { once };',
        '// @ts-expect-error: the declarations are real types, not `any`',
        'client.enqueueRun(1, 2, 3);',
        '// @ts-expect-error: types re-exported through @agentq/shared resolve too',
        "const wrong: RunResult = { text: 'only' };",
        'export { wrong };',
        '',
      ].join('\n'),
    );
    // Throws, with tsc's diagnostics on stdout, when the declarations are missing or wrong.
    await run(process.execPath, [tscPath, '-p', serviceDir], { cwd: serviceDir });
    // A whole tsc program: over a minute on a busy 2-core machine (once 60 s was not enough).
  }, 300_000);

  it('enqueues a run and waits for it from a plain .mjs script outside the repository', async () => {
    await writeFile(
      join(serviceDir, 'service.mjs'),
      [
        "import { createAgentqClient } from '@agentq/client';",
        'const client = createAgentqClient({ redisUrl: process.env.REDIS_URL, prefix: process.env.AGENTQ_PREFIX });',
        'try {',
        '  const { runId } = await client.enqueueRun({',
        "    assistant: { model: 'scripted:pack', script: [{ text: 'hello from the packed client' }] },",
        "    input: { prompt: 'say hello' },",
        '  });',
        '  const result = await client.waitForRun(runId, { timeoutMs: 120000 });',
        '  process.stdout.write(JSON.stringify({ runId, text: result.text }));',
        '} finally {',
        '  await client.close();',
        '}',
        '',
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['service.mjs'], {
      cwd: serviceDir,
      // A clean environment: no loader, no NODE_OPTIONS, nothing that could reach the workspace.
      env: { PATH: process.env.PATH ?? '', REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix },
    });
    const outcome = JSON.parse(stdout) as { runId: string; text: string };
    expect(outcome.text).toBe('hello from the packed client');
    // The run went through this test's worker, on this test's prefix.
    const queue = runsQueue(ctx);
    try {
      expect((await waitForJob(queue, outcome.runId)).state).toBe('completed');
    } finally {
      await queue.close();
    }
    // A fresh Node process and a run of up to two minutes (its waitForRun bound).
  }, 300_000);
});
