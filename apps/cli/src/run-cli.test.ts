import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from './exit-codes.js';
import { runCli } from './run-cli.js';

// Everything here is refused or fails before any Redis answers: nothing listens on port 1.
const nowhere = 'redis://127.0.0.1:1';

async function agentq(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['node', 'agentq', ...args], {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env: { REDIS_URL: nowhere, LOG_LEVEL: 'silent', ...env },
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agentq-cli-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

describe('agentq refuses what it would otherwise ignore', () => {
  it.each([
    ['run', 'hi', '--timeout', '5'],
    ['servers', 'add', 'x', '--command', 'node', '--timeout', '5'],
    ['kb', 'add', 'docs', 'README.md', '--timeout', '5'],
  ])('refuses --timeout without --wait: %s %s', async (...args) => {
    const refused = await agentq(args);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr).toBe('error [USAGE]: --timeout only applies with --wait (field: timeout)');
  });

  it('refuses `servers add --disabled --wait`: a disabled server is never listed', async () => {
    const refused = await agentq(['servers', 'add', 'x', '--command', 'node', '--disabled', '--wait']);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr).toContain("option '--disabled' cannot be used with option '-w, --wait'");
  });

  it("refuses a group's option that the named subcommand does not have", async () => {
    for (const args of [
      ['approvals', '--json', 'approve', 'ap-1'],
      ['approvals', '--run', 'r1', 'deny', 'ap-1'],
      ['elicitations', '--run', 'r1', 'answer', 'e-1', '--cancel'],
    ]) {
      const refused = await agentq(args);
      expect(refused.code, args.join(' ')).toBe(EXIT_CODES.usage);
      expect(refused.stderr, args.join(' ')).toMatch(/^error \[USAGE\]: --(json|run) is not an option of `agentq /);
    }
  });
});

describe('agentq run --spec with a file that does not parse', () => {
  it('calls broken JSON INVALID_JSON and broken YAML VALIDATION, each on one line with where it broke', async () => {
    const json = join(directory, 'broken.json');
    await writeFile(json, '{"assistant": {"model": "scripted:test"},\n');
    const badJson = await agentq(['run', '--spec', json]);
    expect(badJson.code).toBe(EXIT_CODES.usage);
    expect(badJson.stderr).toMatch(
      /^error \[INVALID_JSON\]: Invalid run spec file .*broken\.json: \(root\): not valid JSON/,
    );
    expect(badJson.stderr).not.toContain('\n');

    const yaml = join(directory, 'broken.yaml');
    await writeFile(yaml, 'assistant:\n  model: a: b\n');
    const badYaml = await agentq(['run', '--spec', yaml]);
    expect(badYaml.code).toBe(EXIT_CODES.usage);
    expect(badYaml.stderr).toMatch(
      /^error \[VALIDATION\]: Invalid run spec file .*broken\.yaml: .*at line 2, column \d+\)$/,
    );
    expect(badYaml.stderr).not.toContain('\n');
  });
});

describe('agentq and a Redis URL with a password', () => {
  it('masks the whole password, @ and all, when Redis cannot be reached', async () => {
    const down = await agentq(['status', 'r1'], { REDIS_URL: 'redis://user:p@ssw0rdSECRET@127.0.0.1:1' });
    expect(down.code).toBe(EXIT_CODES.unavailable);
    expect(down.stderr).toContain('cannot reach Redis at redis://user:***@127.0.0.1:1.');
    expect(down.stderr).not.toContain('SECRET');
    expect(down.stderr).not.toContain('ssw0rd');
  });
});
