import { describe, expect, it, vi } from 'vitest';
import { AgentqError } from './agentq-error.js';
import { NonRetryableError } from './non-retryable-error.js';
import { RetryLaterError } from './retry-later-error.js';
import { ValidationError } from './validation-error.js';

describe('AgentqError', () => {
  it('carries a code, a field and a cause', () => {
    const cause = new Error('root');
    const error = new AgentqError({ code: 'NOT_FOUND', message: 'gone', field: 'serverId', cause });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({ code: 'NOT_FOUND', field: 'serverId', message: 'gone', name: 'AgentqError' });
    expect(error.cause).toBe(cause);
  });

  it('isInstance rejects foreign values', () => {
    for (const value of [new Error('x'), null, undefined, 'AgentqError', { code: 'X' }]) {
      expect(AgentqError.isInstance(value)).toBe(false);
    }
  });

  it('isInstance recognises errors from a second copy of the module, where instanceof fails', async () => {
    vi.resetModules();
    const copy = await import('./agentq-error.js');
    const copyNonRetryable = await import('./non-retryable-error.js');
    expect(copy.AgentqError).not.toBe(AgentqError);

    const foreign = new copy.AgentqError({ code: 'NOT_FOUND', message: 'from the copy' });
    expect(foreign instanceof AgentqError).toBe(false);
    expect(AgentqError.isInstance(foreign)).toBe(true);

    const foreignNonRetryable = new copyNonRetryable.NonRetryableError({ code: 'VALIDATION', message: 'copy' });
    expect(NonRetryableError.isInstance(foreignNonRetryable)).toBe(true);
    expect(copy.AgentqError.isInstance(new NonRetryableError({ code: 'CONFLICT', message: 'ours' }))).toBe(true);
  });
});

describe('error kinds', () => {
  it('NonRetryableError and ValidationError are agentq errors that must not retry', () => {
    const validation = new ValidationError({ what: 'thing', issues: [{ field: 'a.b', message: 'bad' }] });
    expect(validation.code).toBe('VALIDATION');
    expect(validation.field).toBe('a.b');
    expect(AgentqError.isInstance(validation)).toBe(true);
    expect(NonRetryableError.isInstance(validation)).toBe(true);
    expect(RetryLaterError.isInstance(validation)).toBe(false);
  });

  it('RetryLaterError keeps a non-negative whole retryAfterMs and a default code', () => {
    const error = new RetryLaterError({ message: 'rate limited', retryAfterMs: 1_500.6 });
    expect(error.retryAfterMs).toBe(1_501);
    expect(error.code).toBe('RETRY_LATER');
    expect(new RetryLaterError({ message: 'x', retryAfterMs: -10, code: 'LEASE_HELD' })).toMatchObject({
      retryAfterMs: 0,
      code: 'LEASE_HELD',
    });
    expect(RetryLaterError.isInstance(error)).toBe(true);
    expect(AgentqError.isInstance(error)).toBe(true);
    expect(NonRetryableError.isInstance(error)).toBe(false);
  });

  it('ValidationError.fromZod names every bad field and takes a code', async () => {
    const { z } = await import('zod');
    const parsed = z.strictObject({ a: z.number(), b: z.object({ c: z.string() }) }).safeParse({ a: 'x', b: { c: 1 } });
    if (parsed.success) throw new Error('expected a failure');
    const error = ValidationError.fromZod('sample', parsed.error, 'CONFIG_INVALID');
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.issues.map((issue) => issue.field)).toEqual(['a', 'b.c']);
    expect(error.message).toContain('b.c');
  });
});
