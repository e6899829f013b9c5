import { AgentqError, ValidationError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES, exitCodeFor } from './exit-codes.js';
import { describeError } from './output/describe-error.js';

describe('exit codes and error lines', () => {
  it('maps error codes to exit codes', () => {
    expect(exitCodeFor(new AgentqError({ code: 'NOT_FOUND', message: 'x' }))).toBe(EXIT_CODES.notFound);
    expect(exitCodeFor(new AgentqError({ code: 'ALREADY_DECIDED', message: 'x' }))).toBe(EXIT_CODES.conflict);
    expect(exitCodeFor(new ValidationError({ what: 'x', issues: [{ field: 'a', message: 'b' }] }))).toBe(
      EXIT_CODES.usage,
    );
    expect(exitCodeFor(new Error('connect ECONNREFUSED 127.0.0.1:6379'))).toBe(EXIT_CODES.unavailable);
    expect(exitCodeFor(new Error('boom'))).toBe(EXIT_CODES.failed);
  });

  it('prints code and field on one line, every field of a multi-field error, and never a stack', () => {
    expect(describeError(new AgentqError({ code: 'NOT_FOUND', message: 'Run x does not exist', field: 'runId' }))).toBe(
      'error [NOT_FOUND]: Run x does not exist (field: runId)',
    );
    const many = describeError(
      new ValidationError({
        what: 'configuration',
        code: 'CONFIG_INVALID',
        issues: [
          { field: 'A', message: 'bad' },
          { field: 'B', message: 'worse' },
        ],
      }),
    );
    expect(many).toContain('  - A: bad');
    expect(many).toContain('  - B: worse');
    expect(describeError(new Error('boom'))).not.toContain(' at ');
    expect(describeError(new Error('ECONNREFUSED'), { redisUrl: 'redis://user:secret@host:6379' })).not.toContain(
      'secret',
    );
  });
});
