import type { RunCheckpoint } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { applyApprovalResponses } from './apply-approval-responses.js';
import { freshCheckpoint } from './fresh-checkpoint.js';

const call = { type: 'tool-call', toolCallId: 'call-1', toolName: 'github__delete_branch', input: { branch: 'old' } };

function parked(): RunCheckpoint {
  const start = freshCheckpoint({
    runId: 'run-1',
    incarnation: 'incarnation-1',
    now: 1,
    spec: { input: { prompt: 'go' } } as Parameters<typeof freshCheckpoint>[0]['spec'],
  });
  return {
    ...start,
    step: 1,
    messages: [
      ...start.messages,
      {
        role: 'assistant',
        content: [call, { type: 'tool-approval-request', approvalId: 'appr-1', toolCallId: 'call-1' }],
      },
    ],
    pendingApprovals: [
      {
        approvalId: 'appr-1',
        toolCallId: 'call-1',
        toolName: 'github__delete_branch',
        argsDigest: 'a',
        schemaDigest: 's',
        childAdded: true,
      },
    ],
    status: 'waiting-approval',
  };
}

describe('applyApprovalResponses', () => {
  it('appends the decisions, clears the pending approvals and runs again', () => {
    const checkpoint = parked();
    const resumed = applyApprovalResponses(checkpoint, {
      responses: [{ type: 'tool-approval-response', approvalId: 'appr-1', approved: false, reason: 'expired' }],
      toolState: { allowedNames: ['github__delete_branch'], inspectedNames: ['github__delete_branch'] },
      now: 42,
    });
    expect(resumed.messages.at(-1)).toEqual({
      role: 'tool',
      content: [{ type: 'tool-approval-response', approvalId: 'appr-1', approved: false, reason: 'expired' }],
    });
    expect(resumed).toMatchObject({
      pendingApprovals: [],
      status: 'running',
      step: 1,
      updatedAt: 42,
      allowedNames: ['github__delete_branch'],
      inspectedNames: ['github__delete_branch'],
    });
    expect(resumed.toolCalls).toEqual([
      expect.objectContaining({
        toolCallId: 'call-1',
        approval: { approvalId: 'appr-1', approved: false, reason: 'expired' },
      }),
    ]);
    // The parked checkpoint itself is left as it was.
    expect(checkpoint.status).toBe('waiting-approval');
    expect(checkpoint.pendingApprovals).toHaveLength(1);
  });
});
