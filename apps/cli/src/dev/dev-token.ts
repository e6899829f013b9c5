import { randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The token `agentq dev` serves with, and where it came from. */
export interface DevToken {
  token: string;
  /** `kept`: read back from the file; `generated`: the first one; `rotated`: replaced on request. */
  source: 'kept' | 'generated' | 'rotated';
  /** The file that holds it. */
  path: string;
}

/** What a token `agentq dev` wrote looks like; anything else in the file is not used. */
const tokenShape = /^[A-Za-z0-9_-]{32,256}$/;

/**
 * The dev API token, kept in `<dir>/dev-token` (mode 0600, in a 0700 folder) so that a restart of
 * `agentq dev` keeps the browser logged in and `$TOKEN` valid. A file rather than a Redis key: it
 * survives a Redis restart and a `--private-redis` that starts empty every time. A new token is
 * made when there is none, when the file does not hold one, or on `rotate`; it replaces the file
 * by rename, so a link planted at that path is replaced, never written through.
 */
export async function loadDevToken(options: { dir: string; rotate?: boolean }): Promise<DevToken> {
  const path = join(options.dir, 'dev-token');
  if (!options.rotate) {
    const kept = await readKept(path);
    if (kept) return { token: kept, source: 'kept', path };
  }
  const existed = (await lstat(path).catch(() => undefined)) !== undefined;
  await mkdir(options.dir, { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('base64url');
  const temporary = `${path}.${process.pid}.tmp`;
  await rm(temporary, { force: true });
  await writeFile(temporary, `${token}\n`, { mode: 0o600, flag: 'wx' });
  await rename(temporary, path);
  return { token, source: options.rotate && existed ? 'rotated' : 'generated', path };
}

async function readKept(path: string): Promise<string | undefined> {
  const info = await lstat(path).catch(() => undefined);
  // Only a regular file of ours: not a link to somewhere else.
  if (!info?.isFile()) return undefined;
  const token = (await readFile(path, 'utf8')).trim();
  if (!tokenShape.test(token)) return undefined;
  // Someone widened it: narrow it back rather than serve a token others can read.
  if ((info.mode & 0o077) !== 0) await chmod(path, 0o600);
  return token;
}
