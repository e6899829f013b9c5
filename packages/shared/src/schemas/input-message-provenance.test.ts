import { describe, expect, it } from 'vitest';
import { createRunSpecSchema, runSpecSchema } from './run-spec.js';

const call = (toolCallId: string) => ({ type: 'tool-call', toolCallId, toolName: 'mcp__fs__write', input: {} });
const result = (toolCallId: string) => ({
  type: 'tool-result',
  toolCallId,
  toolName: 'mcp__fs__write',
  output: { type: 'text', value: 'done' },
});

function issuesOf(messages: unknown[]) {
  const parsed = runSpecSchema.safeParse({ assistant: { model: 'openai:gpt-4o-mini' }, input: { messages } });
  return parsed.success ? [] : parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), code: issue.code }));
}

describe('input message provenance', () => {
  it('accepts a history whose every result answers an earlier call once', () => {
    expect(
      issuesOf([
        { role: 'user', content: 'write it' },
        { role: 'assistant', content: [{ type: 'text', text: 'ok' }, call('c1'), call('c2')] },
        { role: 'tool', content: [result('c1'), result('c2')] },
        { role: 'assistant', content: 'done' },
        { role: 'user', content: [{ type: 'text', text: 'thanks' }] },
      ]),
    ).toEqual([]);
  });

  it('refuses approval requests and responses, naming the part', () => {
    expect(
      issuesOf([
        { role: 'user', content: 'write it' },
        {
          role: 'assistant',
          content: [call('c1'), { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c1' }],
        },
        { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
      ]),
    ).toEqual([
      { path: 'input.messages.1.content.1', code: 'custom' },
      { path: 'input.messages.2.content.0', code: 'custom' },
    ]);
  });

  it('refuses a result for a call the history does not make, and a second result for one call', () => {
    expect(
      issuesOf([
        { role: 'user', content: 'x' },
        { role: 'tool', content: [result('ghost')] },
      ]),
    ).toEqual([{ path: 'input.messages.1.content.0', code: 'custom' }]);
    expect(
      issuesOf([
        { role: 'assistant', content: [call('c1')] },
        { role: 'tool', content: [result('c1')] },
        { role: 'tool', content: [result('c1')] },
      ]),
    ).toEqual([{ path: 'input.messages.2.content.0', code: 'custom' }]);
    // A result placed before its call does not count as answering it.
    expect(
      issuesOf([
        { role: 'tool', content: [result('c1')] },
        { role: 'assistant', content: [call('c1')] },
      ]),
    ).toEqual([{ path: 'input.messages.0.content.0', code: 'custom' }]);
  });

  it('refuses a tool call id given twice', () => {
    expect(issuesOf([{ role: 'assistant', content: [call('c1'), call('c1')] }])).toEqual([
      { path: 'input.messages.0.content.1', code: 'custom' },
    ]);
  });

  it('refuses parts the role cannot carry and parts without their fields', () => {
    expect(issuesOf([{ role: 'user', content: [call('c1')] }])).toEqual([
      { path: 'input.messages.0.content.0.type', code: 'custom' },
    ]);
    expect(issuesOf([{ role: 'user', content: [{ type: 'text' }] }])).toEqual([
      { path: 'input.messages.0.content.0.text', code: 'custom' },
    ]);
    expect(issuesOf([{ role: 'tool', content: 'not parts' }]).map((issue) => issue.path)).toEqual([
      'input.messages.0.content',
    ]);
    expect(issuesOf([{ role: 'system', content: [{ type: 'text', text: 'x' }] }])[0]?.path).toBe(
      'input.messages.0.content',
    );
  });

  it('holds under any limits', () => {
    const schema = createRunSpecSchema({ maxInputBytes: 10 * 1024 * 1024 });
    const parsed = schema.safeParse({
      assistant: { model: 'openai:gpt-4o-mini' },
      input: {
        messages: [{ role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a', approved: true }] }],
      },
    });
    expect(parsed.success).toBe(false);
  });
});
