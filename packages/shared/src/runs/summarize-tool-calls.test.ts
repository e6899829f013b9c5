import { describe, expect, it } from 'vitest';
import { answeredToolCallIds, summarizeToolCalls } from './summarize-tool-calls.js';

describe('summarizeToolCalls', () => {
  it('reads a call the provider ran itself, with its result in the same assistant message', () => {
    const records = summarizeToolCalls([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          {
            type: 'tool-call',
            toolCallId: 's1',
            toolName: 'provider_tool_search',
            input: { query: 'files' },
            providerExecuted: true,
          },
          {
            type: 'tool-result',
            toolCallId: 's1',
            toolName: 'provider_tool_search',
            output: { type: 'json', value: [{ type: 'tool_reference', toolName: 'read' }] },
          },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: {} },
        ],
      },
    ]);
    expect(records).toEqual([
      {
        toolCallId: 's1',
        toolName: 'provider_tool_search',
        input: { query: 'files' },
        output: [{ type: 'tool_reference', toolName: 'read' }],
        isError: false,
        providerExecuted: true,
        step: 0,
      },
      { toolCallId: 'c1', toolName: 'read', input: {}, isError: false, step: 0 },
    ]);
  });

  const messages = [
    { role: 'user', content: 'go' },
    {
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { id: 1 } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'write', input: { id: 2 } },
        { type: 'tool-approval-request', approvalId: 'a2', toolCallId: 'c2' },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'json', value: { ok: 1 } } },
      ],
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-approval-response', approvalId: 'a2', approved: false, reason: 'no' },
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'write',
          output: { type: 'execution-denied', reason: 'no' },
        },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'c3', toolName: 'fail', input: {} }] },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c3', toolName: 'fail', output: { type: 'error-text', value: 'boom' } },
      ],
    },
  ];

  it('reads calls, outputs, errors, denials and approvals back from the messages', () => {
    expect(summarizeToolCalls(messages)).toEqual([
      { toolCallId: 'c1', toolName: 'read', input: { id: 1 }, output: { ok: 1 }, isError: false, step: 0 },
      {
        toolCallId: 'c2',
        toolName: 'write',
        input: { id: 2 },
        output: { denied: true, reason: 'no' },
        isError: false,
        step: 0,
        approval: { approvalId: 'a2', approved: false, reason: 'no' },
      },
      { toolCallId: 'c3', toolName: 'fail', input: {}, output: 'boom', isError: true, step: 1 },
    ]);
    expect(answeredToolCallIds(messages)).toEqual(['c1', 'c2', 'c3']);
  });
});
