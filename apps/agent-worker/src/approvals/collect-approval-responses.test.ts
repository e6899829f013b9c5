import { digestOf, runCheckpointSchema, type RunCheckpoint } from '@agentq/shared';
import { type ApprovalRecord } from '@agentq/store';
import { tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { appendApprovalResponses, collectApprovalResponses } from './collect-approval-responses.js';

const input = { note: 'hello' };
const run = { runId: 'run-1', incarnation: 'incarnation-1' };

interface Entry {
  approvalId: string;
  toolCallId: string;
  /** What the checkpoint's own copy says. */
  argsDigest?: string;
  /** The arguments in the checkpoint's messages. */
  callInput?: unknown;
}

function checkpointWith(pending: Entry[]): RunCheckpoint {
  return runCheckpointSchema.parse({
    runId: run.runId,
    messages: [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: pending.map((entry) => ({
          type: 'tool-call',
          toolCallId: entry.toolCallId,
          toolName: 'act',
          input: entry.callInput ?? input,
        })),
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
      argsDigest: entry.argsDigest ?? digestOf(entry.callInput ?? input),
      schemaDigest: 'schema-1',
    })),
    status: 'waiting-approval',
    updatedAt: 0,
  });
}

/** The decision record of an entry as a person approved (or denied) it, with its request as shown. */
function recordOf(
  entry: Entry,
  options: { approved?: boolean; request?: Partial<ApprovalRecord['request']> } = {},
): ApprovalRecord {
  return {
    request: {
      approvalId: entry.approvalId,
      ...run,
      toolCallId: entry.toolCallId,
      toolName: 'act',
      serverId: 'fx',
      input,
      argsDigest: digestOf(input),
      schemaDigest: 'schema-1',
      requestedAt: 0,
      expiresAt: 1,
      ...options.request,
    },
    decision: { approved: options.approved ?? true, decidedBy: 'alice', decidedAt: 1, reason: 'ok' },
    outcome: 'decision',
  };
}

const runTools = {
  allTools: { act: tool({ inputSchema: z.object({ note: z.string() }), execute: async () => 'ok' }) },
  schemaDigests: new Map([['act', 'schema-1']]),
  wireNames: { act: 'fx:act' },
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
    const entries = [
      { approvalId: 'a1', toolCallId: 'c1' },
      { approvalId: 'a2', toolCallId: 'c2' },
    ];
    expect(
      collectApprovalResponses({
        childrenValues: { 'x:a1': value('a1', true) },
        checkpoint: checkpointWith(entries),
        records: entries.map((entry) => recordOf(entry)),
        run,
        runTools,
      }),
    ).toBeNull();
  });

  it('passes approvals that still match and turns denials and expiries into reasons', () => {
    const entries = [
      { approvalId: 'a1', toolCallId: 'c1' },
      { approvalId: 'a2', toolCallId: 'c2' },
      { approvalId: 'a3', toolCallId: 'c3' },
    ];
    const responses = collectApprovalResponses({
      childrenValues: { one: value('a1', true), two: value('a2', false), three: value('a3', false, 'expired') },
      checkpoint: checkpointWith(entries),
      records: entries.map((entry) => recordOf(entry)),
      run,
      runTools,
    });
    expect(responses).toEqual([
      { type: 'tool-approval-response', approvalId: 'a1', approved: true, reason: 'ok' },
      { type: 'tool-approval-response', approvalId: 'a2', approved: false, reason: 'denied by alice: nope' },
      { type: 'tool-approval-response', approvalId: 'a3', approved: false, reason: 'expired' },
    ]);
  });

  it('fails closed when the tool is gone, its schema changed, or the arguments differ from the record', () => {
    const entries = [
      { approvalId: 'a1', toolCallId: 'c1' },
      { approvalId: 'a2', toolCallId: 'c2' },
    ];
    const records = [
      recordOf(entries[0] as Entry, { request: { schemaDigest: 'schema-0' } }),
      recordOf(entries[1] as Entry, { request: { input: { note: 'other' }, argsDigest: digestOf({ note: 'other' }) } }),
    ];
    const childrenValues = { one: value('a1', true), two: value('a2', true) };
    const checkpoint = checkpointWith(entries);
    const changed = collectApprovalResponses({ childrenValues, checkpoint, records, run, runTools });
    expect(changed?.map((response) => response.approved)).toEqual([false, false]);
    expect(changed?.[0]?.reason).toContain('schema');
    expect(changed?.[1]?.reason).toContain('arguments');
    const gone = collectApprovalResponses({
      childrenValues,
      checkpoint,
      records,
      run,
      runTools: { allTools: {}, schemaDigests: new Map(), wireNames: {} },
    });
    expect(gone?.every((response) => !response.approved && response.reason?.includes('no longer'))).toBe(true);
  });

  it('compares with the decision record, not the checkpoint: a rewritten call with a matching copy is denied', () => {
    const tampered = { note: 'rewritten' };
    const entry = { approvalId: 'a1', toolCallId: 'c1', callInput: tampered, argsDigest: digestOf(tampered) };
    const refused: string[] = [];
    const responses = collectApprovalResponses({
      childrenValues: { one: value('a1', true) },
      checkpoint: checkpointWith([entry]),
      records: [recordOf(entry)],
      run,
      runTools,
      onRefused: (refusal) => refused.push(refusal.approvalId),
    });
    expect(responses).toEqual([expect.objectContaining({ approvalId: 'a1', approved: false })]);
    expect(responses?.[0]?.reason).toContain('arguments');
    expect(refused).toEqual(['a1']);
  });

  it('denies an approval of another incarnation, of a request without one, or that no record approves', () => {
    const entry = { approvalId: 'a1', toolCallId: 'c1' };
    const childrenValues = { one: value('a1', true) };
    const checkpoint = checkpointWith([entry]);
    const cases: Array<readonly ApprovalRecord[]> = [
      [recordOf(entry, { request: { incarnation: 'earlier' } })],
      [recordOf(entry, { request: { incarnation: undefined } })],
      [recordOf(entry, { approved: false })],
      [{ ...recordOf(entry), outcome: 'no-decision' }],
      [],
    ];
    for (const records of cases) {
      const responses = collectApprovalResponses({ childrenValues, checkpoint, records, run, runTools });
      expect(responses).toEqual([expect.objectContaining({ approvalId: 'a1', approved: false })]);
      expect(responses?.[0]?.reason).toMatch(/^Not executed/);
    }
  });

  it('denies approvals without a result once none can come any more', () => {
    const entry = { approvalId: 'a1', toolCallId: 'c1' };
    const responses = collectApprovalResponses({
      childrenValues: {},
      checkpoint: checkpointWith([entry]),
      records: [recordOf(entry)],
      run,
      runTools,
      missingAsDenied: true,
    });
    expect(responses).toEqual([
      expect.objectContaining({ type: 'tool-approval-response', approvalId: 'a1', approved: false }),
    ]);
  });

  it('never treats an unparseable child value as a decision', () => {
    const entry = { approvalId: 'a1', toolCallId: 'c1' };
    expect(
      collectApprovalResponses({
        childrenValues: { one: { approvalId: 'a1', approved: true } },
        checkpoint: checkpointWith([entry]),
        records: [recordOf(entry)],
        run,
        runTools,
      }),
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
