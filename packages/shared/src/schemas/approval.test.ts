import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors/validation-error.js';
import { elicitationRequestSchema } from './elicitation.js';
import {
  approvalJobSchema,
  approvalResultSchema,
  decisionInputSchema,
  decisionRecordSchema,
  RECORD_ID_MAX_LENGTH,
  recordIdSchema,
} from './approval.js';

const job = {
  approvalId: 'run-1:c1',
  runId: 'run-1',
  toolCallId: 'c1',
  toolName: 'mcp__github__delete_repo',
  input: { repo: 'x' },
  argsDigest: 'abc',
  schemaDigest: 'def',
  requestedAt: 1,
  expiresAt: 2,
};

describe('approvalJobSchema', () => {
  it('accepts a job and rejects missing or unknown fields', () => {
    expect(approvalJobSchema.parse(job)).toEqual(job);
    const { argsDigest: _digest, ...missing } = job;
    expect(approvalJobSchema.safeParse(missing).error?.issues[0]?.path).toEqual(['argsDigest']);
    expect(approvalJobSchema.safeParse({ ...job, approved: true }).error?.issues[0]?.code).toBe('unrecognized_keys');
  });
});

describe('decision schemas', () => {
  it('accepts a decision and rejects a non-boolean approval, a missing approver and unknown fields', () => {
    expect(decisionInputSchema.parse({ approvalId: 'a', approved: true, decidedBy: 'ops' })).toEqual({
      approvalId: 'a',
      approved: true,
      decidedBy: 'ops',
    });
    expect(
      decisionInputSchema.safeParse({ approvalId: 'a', approved: 'yes', decidedBy: 'ops' }).error?.issues[0]?.path,
    ).toEqual(['approved']);
    expect(decisionInputSchema.safeParse({ approvalId: 'a', approved: true }).error?.issues[0]?.path).toEqual([
      'decidedBy',
    ]);
    expect(
      decisionInputSchema.safeParse({ approvalId: 'a', approved: true, decidedBy: 'o', approve: true }).success,
    ).toBe(false);
    expect(
      decisionInputSchema.safeParse({ approvalId: 'a', approved: true, decidedBy: 'o', reason: 'x'.repeat(2_001) })
        .success,
    ).toBe(false);
  });

  it('records decisions and results with their outcome', () => {
    expect(
      decisionRecordSchema.safeParse({ approved: false, decidedBy: 'ops', decidedAt: 5, reason: 'no' }).success,
    ).toBe(true);
    expect(decisionRecordSchema.safeParse({ approved: false, decidedBy: 'ops' }).error?.issues[0]?.path).toEqual([
      'decidedAt',
    ]);
    for (const outcome of ['decision', 'expired', 'no-decision']) {
      expect(approvalResultSchema.safeParse({ approvalId: 'a', approved: false, outcome }).success).toBe(true);
    }
    expect(
      approvalResultSchema.safeParse({ approvalId: 'a', approved: false, outcome: 'timeout' }).error?.issues[0]?.path,
    ).toEqual(['outcome']);
  });
});

describe('approval and elicitation ids', () => {
  const decision = { approved: true, decidedBy: 'ops' };

  it('accepts the ids agentq generates', () => {
    for (const id of [`appr-${'0a'.repeat(16)}`, `appr-r12-${'f'.repeat(32)}`, `elic-r0-${'1'.repeat(32)}`]) {
      expect(recordIdSchema.parse(id)).toBe(id);
      expect(decisionInputSchema.safeParse({ ...decision, approvalId: id }).success).toBe(true);
    }
  });

  it('refuses an oversized id by its field, without copying it into the error', () => {
    const huge = `appr-${'a'.repeat(5_000_000)}`;
    const parsed = decisionInputSchema.safeParse({ ...decision, approvalId: huge });
    expect(parsed.success).toBe(false);
    const error = ValidationError.fromZod('decision', parsed.error!);
    expect(error.field).toBe('approvalId');
    expect(error.message).toContain('approvalId');
    expect(error.message.length).toBeLessThan(1_000);
    const atCap = 'a'.repeat(RECORD_ID_MAX_LENGTH);
    expect(decisionInputSchema.safeParse({ ...decision, approvalId: atCap }).success).toBe(true);
    expect(decisionInputSchema.safeParse({ ...decision, approvalId: `${atCap}a` }).success).toBe(false);
  });

  it('refuses characters no generated id has', () => {
    for (const id of ['-a', 'a b', 'a\nb', 'appr/../x', 'a{b}']) {
      const parsed = decisionInputSchema.safeParse({ ...decision, approvalId: id });
      expect(parsed.error?.issues[0]?.path, id).toEqual(['approvalId']);
    }
  });

  it('caps the ids of stored requests too', () => {
    expect(RECORD_ID_MAX_LENGTH).toBe(200);
    const tooLong = 'a'.repeat(201);
    expect(approvalJobSchema.safeParse({ ...job, approvalId: tooLong }).error?.issues[0]?.path).toEqual(['approvalId']);
    const elicitation = {
      elicitationId: tooLong,
      runId: 'run-1',
      incarnation: 'i',
      toolCallId: 'c1',
      toolName: 't',
      serverId: 's',
      argsDigest: 'a',
      digest: 'd',
      message: 'm',
      requestedSchema: {},
      requestedAt: 1,
      expiresAt: 2,
    };
    expect(elicitationRequestSchema.safeParse(elicitation).error?.issues[0]?.path).toEqual(['elicitationId']);
  });
});
