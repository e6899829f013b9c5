import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_INSTALL_COMMAND, ChromiumMissingError, findChromium } from './launch-chromium.js';

// The browser tests never skip: a machine without Chromium fails them with the binary's name and
// the line that installs it.
describe('findChromium', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentq-chromium-'));
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  function missing(env: NodeJS.ProcessEnv): ChromiumMissingError {
    try {
      findChromium(env);
    } catch (error) {
      if (error instanceof ChromiumMissingError) return error;
      throw error;
    }
    throw new Error('findChromium found a browser');
  }

  it('fails with the binary it looked for and the install line when none is on PATH', () => {
    const error = missing({ PATH: dir });
    expect(error.code).toBe('CHROMIUM_MISSING');
    expect(error.message).toContain('chromium');
    expect(error.message).toContain(CHROMIUM_INSTALL_COMMAND);
  });

  it('fails when AGENTQ_CHROMIUM names no executable, and says so', () => {
    const error = missing({ AGENTQ_CHROMIUM: join(dir, 'nope'), PATH: '' });
    expect(error.code).toBe('CHROMIUM_MISSING');
    expect(error.message).toContain(join(dir, 'nope'));
    expect(error.message).toContain(CHROMIUM_INSTALL_COMMAND);
  });

  it('finds chromium-browser on PATH, and prefers AGENTQ_CHROMIUM', async () => {
    const ubuntu = join(dir, 'chromium-browser');
    const custom = join(dir, 'my-chromium');
    for (const file of [ubuntu, custom]) {
      await writeFile(file, '#!/bin/sh\n');
      await chmod(file, 0o755);
    }
    expect(findChromium({ PATH: dir })).toBe(ubuntu);
    expect(findChromium({ PATH: dir, AGENTQ_CHROMIUM: custom })).toBe(custom);
  });
});
