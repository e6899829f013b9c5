import { describe, expect, it } from 'vitest';
import { approvalJobSchema, approvalResultSchema, decisionInputSchema, decisionRecordSchema } from './approval.js';

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
