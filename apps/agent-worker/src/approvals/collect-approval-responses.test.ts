import { digestOf, runCheckpointSchema, type RunCheckpoint } from '@agentq/shared';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appendApprovalResponses, collectApprovalResponses } from './collect-approval-responses.js';

const input = { note: 'hello' };

function checkpointWith(
  pending: Array<{ approvalId: string; toolCallId: string; argsDigest?: string; schemaDigest?: string }>,
): RunCheckpoint {
  return runCheckpointSchema.parse({
    runId: 'run-1',
    messages: [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: pending.map((entry) => ({ type: 'tool-call', toolCallId: entry.toolCallId, toolName: 'act', input })),
      },
    ],
    allowedNames: ['act'],
    inspectedNames: [],
    step: 1,
    usage: {},
    catalogVersion: {},
    pendingApprovals: pending.map((entry) => ({
      approvalId: entry.approvalId,
      toolCallId: entry.toolCallId,
      toolName: 'act',
      argsDigest: entry.argsDigest ?? digestOf(input),
      schemaDigest: entry.schemaDigest ?? 'schema-1',
    })),
    status: 'waiting-approval',
    updatedAt: 0,
  });
}

const runTools = {
  allTools: { act: tool({ inputSchema: z.object({ note: z.string() }), execute: async () => 'ok' }) },
  schemaDigests: new Map([['act', 'schema-1']]),
};

const value = (
  approvalId: string,
  approved: boolean,
  outcome: 'decision' | 'expired' | 'no-decision' = 'decision',
) => ({
  approvalId,
  approved,
  outcome,
  decidedBy: 'alice',
  reason: approved ? undefined : 'nope',
});

describe('collectApprovalResponses', () => {
  it('waits while any approval has no result', () => {
    const checkpoint = checkpointWith([
      { approvalId: 'a1', toolCallId: 'c1' },
      { approvalId: 'a2', toolCallId: 'c2' },
    ]);
    expect(
      collectApprovalResponses({ childrenValues: { 'x:a1': value('a1', true) }, checkpoint, runTools }),
    ).toBeNull();
  });

  it('passes approvals that still match and turns denials and expiries into reasons', () => {
    const checkpoint = checkpointWith([
      { approvalId: 'a1', toolCallId: 'c1' },
      { approvalId: 'a2', toolCallId: 'c2' },
      { approvalId: 'a3', toolCallId: 'c3' },
    ]);
    const responses = collectApprovalResponses({
      childrenValues: { one: value('a1', true), two: value('a2', false), three: value('a3', false, 'expired') },
      checkpoint,
      runTools,
    });
    expect(responses).toEqual([
      { type: 'tool-approval-response', approvalId: 'a1', approved: true, reason: undefined },
      { type: 'tool-approval-response', approvalId: 'a2', approved: false, reason: 'denied by alice: nope' },
      { type: 'tool-approval-response', approvalId: 'a3', approved: false, reason: 'expired' },
    ]);
  });

  it('fails closed when the tool is gone, its schema changed, or the arguments differ', () => {
    const checkpoint = checkpointWith([
      { approvalId: 'a1', toolCallId: 'c1', schemaDigest: 'schema-0' },
      { approvalId: 'a2', toolCallId: 'c2', argsDigest: 'tampered' },
    ]);
    const childrenValues = { one: value('a1', true), two: value('a2', true) };
    const changed = collectApprovalResponses({ childrenValues, checkpoint, runTools });
    expect(changed?.map((response) => response.approved)).toEqual([false, false]);
    expect(changed?.[0]?.reason).toContain('schema');
    expect(changed?.[1]?.reason).toContain('arguments');
    const gone = collectApprovalResponses({
      childrenValues,
      checkpoint,
      runTools: { allTools: {}, schemaDigests: new Map() },
    });
    expect(gone?.every((response) => !response.approved && response.reason?.includes('no longer'))).toBe(true);
  });

  it('denies approvals without a result once none can come any more', () => {
    const checkpoint = checkpointWith([{ approvalId: 'a1', toolCallId: 'c1' }]);
    const responses = collectApprovalResponses({ childrenValues: {}, checkpoint, runTools, missingAsDenied: true });
    expect(responses).toEqual([
      expect.objectContaining({ type: 'tool-approval-response', approvalId: 'a1', approved: false }),
    ]);
  });

  it('never treats an unparseable child value as a decision', () => {
    const checkpoint = checkpointWith([{ approvalId: 'a1', toolCallId: 'c1' }]);
    expect(
      collectApprovalResponses({ childrenValues: { one: { approvalId: 'a1', approved: true } }, checkpoint, runTools }),
    ).toBeNull();
  });
});

describe('appendApprovalResponses', () => {
  const response = { type: 'tool-approval-response' as const, approvalId: 'a1', approved: true };

  it('adds a tool message, or joins the last one when it already is a tool message', () => {
    const plain: RunCheckpoint['messages'] = [{ role: 'assistant', content: [] }];
    expect(appendApprovalResponses(plain, [response]).at(-1)).toEqual({ role: 'tool', content: [response] });
    const withResult: RunCheckpoint['messages'] = [{ role: 'tool', content: [{ type: 'tool-result' }] }];
    expect(appendApprovalResponses(withResult, [response])).toEqual([
      { role: 'tool', content: [{ type: 'tool-result' }, response] },
    ]);
  });
});
