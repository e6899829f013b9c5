import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliInvocation } from './cli-invocation.js';

describe('cliInvocation', () => {
  it('follows npm scripts and npx', () => {
    expect(cliInvocation({ npm_lifecycle_event: 'agentq', PATH: '' })).toBe('npm run agentq --');
    expect(cliInvocation({ npm_lifecycle_event: 'start', PATH: '' })).toBe('npm run agentq --');
    expect(cliInvocation({ npm_command: 'exec', npm_lifecycle_event: 'npx', PATH: '' })).toBe('npx agentq');
  });

  it('says plain agentq only when one is on the PATH', async () => {
    expect(cliInvocation({ PATH: '' })).toBe('npx agentq');
    const directory = await mkdtemp(join(tmpdir(), 'agentq-bin-'));
    try {
      await writeFile(join(directory, 'agentq'), '#!/bin/sh\n');
      await chmod(join(directory, 'agentq'), 0o755);
      expect(cliInvocation({ PATH: directory })).toBe('agentq');
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
