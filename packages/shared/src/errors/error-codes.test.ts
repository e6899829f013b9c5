import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DelayedError, UnrecoverableError, WaitingChildrenError } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { AgentqError } from './agentq-error.js';
import { ERROR_CODES, EXIT_CODES, errorCodeInfo, isErrorCode, type ErrorCode } from './error-codes.js';
import { NonRetryableError } from './non-retryable-error.js';
import { RetryLaterError } from './retry-later-error.js';
import { isParkedError, isRetryable, parkedError, toBullmqError, withBullmqErrors } from './to-bullmq-error.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
const codes = Object.keys(ERROR_CODES) as ErrorCode[];

function fakeJob() {
  return { moveToDelayed: vi.fn(async () => undefined) };
}

describe('ERROR_CODES', () => {
  it.each(codes)('%s has a status in 400-599, a CLI exit code, a retryable flag and a description', (code) => {
    const info: { status: number; exitCode: number; retryable: boolean; description: string; aliasOf?: string } =
      ERROR_CODES[code];
    expect(Number.isInteger(info.status) && info.status >= 400 && info.status <= 599).toBe(true);
    expect(Object.values(EXIT_CODES)).toContain(info.exitCode);
    expect(info.exitCode).not.toBe(EXIT_CODES.ok);
    expect(typeof info.retryable).toBe('boolean');
    expect(info.description.trim().length).toBeGreaterThan(0);
    expect(info.description).not.toContain('\n');
    expect(code).toMatch(/^[A-Z][A-Z0-9_]*$/);
    if (info.aliasOf !== undefined) {
      // An older name kept for a public interface points at a canonical code with the same meaning.
      expect(isErrorCode(info.aliasOf)).toBe(true);
      const canonical = errorCodeInfo(info.aliasOf);
      expect(canonical?.aliasOf).toBeUndefined();
      expect(canonical?.status).toBe(info.status);
      expect(canonical?.exitCode).toBe(info.exitCode);
      expect(canonical?.retryable).toBe(info.retryable);
    }
  });

  it('knows only its own codes', () => {
    expect(isErrorCode('NOT_FOUND')).toBe(true);
    for (const value of ['NOPE', 'toString', '__proto__', 'constructor', 42, undefined]) {
      expect(isErrorCode(value)).toBe(false);
      expect(errorCodeInfo(value)).toBeUndefined();
    }
  });
});

describe('toBullmqError follows the table', () => {
  it.each(codes)('%s: a plain agentq error is retried or failed as ERROR_CODES says', async (code) => {
    const error = new AgentqError({ code, message: 'm', field: 'f' });
    const mapped = await toBullmqError(error, { job: fakeJob(), token: 't' });
    expect(isRetryable(error)).toBe(ERROR_CODES[code].retryable);
    if (ERROR_CODES[code].retryable) {
      expect(mapped).toBe(error);
    } else {
      expect(mapped).toBeInstanceOf(UnrecoverableError);
      expect(mapped.message).toBe(`${code}: m`);
      expect(mapped).toMatchObject({ code, field: 'f' });
      expect(mapped.cause).toBe(error);
    }
  });

  it('never retries a NonRetryableError, whatever its code', async () => {
    const error = new NonRetryableError({ code: 'UNAVAILABLE', message: 'gone for good' });
    expect(ERROR_CODES.UNAVAILABLE.retryable).toBe(true);
    const mapped = await toBullmqError(error, { job: fakeJob(), token: 't' });
    expect(mapped).toBeInstanceOf(UnrecoverableError);
    expect(mapped.message).toBe('UNAVAILABLE: gone for good');
  });

  it('moves a RetryLaterError back to delayed without a failed attempt, whatever its code', async () => {
    const job = fakeJob();
    const before = Date.now();
    const error = new RetryLaterError({ code: 'REFRESH_BUSY', message: 'busy', retryAfterMs: 5_000 });
    const mapped = await toBullmqError(error, { job, token: 'tok' });
    expect(mapped).toBeInstanceOf(DelayedError);
    expect(job.moveToDelayed).toHaveBeenCalledTimes(1);
    const [until, token] = job.moveToDelayed.mock.calls[0] as unknown as [number, string];
    expect(token).toBe('tok');
    expect(until).toBeGreaterThanOrEqual(before + 5_000);
  });

  it('without a lock token, lets a RetryLaterError retry with the job backoff', async () => {
    const job = fakeJob();
    const error = new RetryLaterError({ message: 'later', retryAfterMs: 10 });
    expect(await toBullmqError(error, { job })).toBe(error);
    expect(job.moveToDelayed).not.toHaveBeenCalled();
  });

  it("retries what is not an agentq error, and passes BullMQ's own signals through", async () => {
    const plain = new Error('ECONNRESET');
    expect(await toBullmqError(plain, { job: fakeJob() })).toBe(plain);
    expect(await toBullmqError('a string', { job: fakeJob() })).toBeInstanceOf(Error);
    const parked = parkedError();
    expect(parked).toBeInstanceOf(WaitingChildrenError);
    expect(isParkedError(parked)).toBe(true);
    expect(await toBullmqError(parked, { job: fakeJob() })).toBe(parked);
    const unrecoverable = new UnrecoverableError('x');
    expect(await toBullmqError(unrecoverable, { job: fakeJob() })).toBe(unrecoverable);
  });

  it('withBullmqErrors throws the mapped error and returns the result', async () => {
    expect(await withBullmqErrors({ job: fakeJob() }, async () => 7)).toBe(7);
    await expect(
      withBullmqErrors({ job: fakeJob() }, async () => {
        throw new AgentqError({ code: 'VALIDATION', message: 'bad' });
      }),
    ).rejects.toBeInstanceOf(UnrecoverableError);
  });
});

/** Every `.ts` file under `dir`, tests excluded. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !path.includes('/node_modules/'));
}

function sourceRoots(): string[] {
  return ['packages', 'apps'].flatMap((group) =>
    readdirSync(join(root, group), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(root, group, entry.name, 'src')),
  );
}

/**
 * The error codes a source text spells: `code: 'X'` literals and the values of the per-package
 * `*_ERROR_CODES` objects. Lower-case codes (zod's `custom`, test stand-ins) are not error codes.
 */
function codesIn(text: string): string[] {
  const found = [...text.matchAll(/\bcode\s*:\s*['"`]([A-Z][A-Z0-9_]*)['"`]/g)].map((match) => match[1]!);
  for (const block of text.matchAll(/_ERROR_CODES\s*=\s*\{([^}]*)\}/g)) {
    found.push(...[...block[1]!.matchAll(/:\s*'([A-Z][A-Z0-9_]*)'/g)].map((match) => match[1]!));
  }
  return found;
}

describe('no loose error codes in the source', () => {
  it('finds code literals and *_ERROR_CODES values, so a new code cannot slip past', () => {
    expect(codesIn(`throw new AgentqError({ code: 'NEW_THING', message })`)).toEqual(['NEW_THING']);
    expect(codesIn(`x = { code:"OTHER" }; y = { code: 'custom' }`)).toEqual(['OTHER']);
    expect(
      codesIn(`export const X_ERROR_CODES = {\n  /** doc */\n  a: 'A_CODE',\n  b: 'B_CODE',\n} as const;`),
    ).toEqual(['A_CODE', 'B_CODE']);
  });

  it('every code spelled in packages/*/src and apps/*/src is in ERROR_CODES', () => {
    const files = sourceRoots().flatMap(sourceFiles);
    expect(files.length).toBeGreaterThan(50);
    const stray: string[] = [];
    let seen = 0;
    for (const file of files) {
      for (const code of codesIn(readFileSync(file, 'utf8'))) {
        seen += 1;
        if (!isErrorCode(code)) stray.push(`${relative(root, file)}: ${code}`);
      }
    }
    expect(seen).toBeGreaterThan(50);
    expect(stray, 'add each code to ERROR_CODES (packages/shared/src/errors/error-codes.ts)').toEqual([]);
  });

  it("no file but the shared adapter imports BullMQ's error classes", () => {
    const adapter = join(root, 'packages/shared/src/errors/to-bullmq-error.ts');
    const importsErrorClasses =
      /import\s*\{[^}]*\b(UnrecoverableError|DelayedError|WaitingChildrenError)\b[^}]*\}\s*from\s*'bullmq'/;
    const offenders = sourceRoots()
      .flatMap(sourceFiles)
      .filter((file) => file !== adapter && importsErrorClasses.test(readFileSync(file, 'utf8')))
      .map((file) => relative(root, file));
    expect(importsErrorClasses.test(readFileSync(adapter, 'utf8'))).toBe(true);
    expect(offenders).toEqual([]);
  });
});
