import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { runCli } from '@agentq/cli';
import { EXIT_CODES } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestWorker } from '../worker/helpers/worker-harness.js';

// Issue #24, item 5: any run spec (a scripted model's script here) from a file, from the CLI.
let ctx: TestContext;
let worker: AgentWorker;
let directory: string;

beforeAll(async () => {
  ctx = createTestContext();
  directory = await mkdtemp(join(tmpdir(), 'agentq-run-spec-'));
  worker = await startTestWorker({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
}, 120_000);
afterAll(async () => {
  await worker?.close();
  await ctx?.close();
  await rm(directory, { recursive: true, force: true });
}, 120_000);

async function agentq(...args: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await runCli(['node', 'agentq', ...args], {
    out: (text) => lines.push(text),
    err: (text) => lines.push(text),
    env: { REDIS_URL: ctx.redisUrl, AGENTQ_PREFIX: ctx.prefix, LOG_LEVEL: 'silent' },
  });
  return { code, output: lines.join('\n') };
}

describe('agentq run --spec', () => {
  it('runs a YAML or JSON spec as it is, and names the bad field of an invalid one', async () => {
    const yaml = join(directory, 'spec.yaml');
    await writeFile(
      yaml,
      [
        'assistant:',
        '  model: scripted:test',
        '  script:',
        '    - text: from the file',
        'input:',
        '  prompt: hi',
        '',
      ].join('\n'),
    );
    const done = await agentq('run', '--spec', yaml, '--wait', '--timeout', '90000');
    expect(done.code, done.output).toBe(EXIT_CODES.ok);
    expect(done.output).toContain('from the file');

    const json = join(directory, 'bad.json');
    await writeFile(
      json,
      JSON.stringify({ assistant: { model: 'scripted:test', maxSteps: 0 }, input: { prompt: 'x' } }),
    );
    const bad = await agentq('run', '--spec', json, '--json');
    expect(bad.code, bad.output).toBe(EXIT_CODES.usage);
    expect(bad.output).toContain('VALIDATION');
    expect(bad.output).toContain('maxSteps');

    const clash = await agentq('run', 'a prompt', '--spec', yaml);
    expect(clash.code, clash.output).toBe(EXIT_CODES.usage);
    expect(clash.output).toContain('USAGE');
  }, 180_000);
});
