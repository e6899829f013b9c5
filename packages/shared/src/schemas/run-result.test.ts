import { describe, expect, it } from 'vitest';
import { runResultSchema } from './run-result.js';
import { runCheckpointSchema } from './run-checkpoint.js';

const result = {
  runId: 'run-1',
  text: 'done',
  finishReason: 'stop',
  steps: [
    { step: 0, text: 'done', finishReason: 'stop', usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 } },
  ],
  toolCalls: [{ toolCallId: 'c1', toolName: 'mcp__github__list', input: {}, output: ['a'], step: 0 }],
  usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
  catalogVersion: { github: 'v1' },
};

describe('runResultSchema', () => {
  it('accepts a result and fills record defaults', () => {
    const parsed = runResultSchema.parse(result);
    expect(parsed.steps[0]!.toolCalls).toEqual([]);
    expect(parsed.toolCalls[0]!.isError).toBe(false);
    expect(runResultSchema.parse({ ...result, usage: {} }).usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
    });
  });

  it('rejects missing and unknown fields, naming them', () => {
    const { text: _text, ...withoutText } = result;
    expect(runResultSchema.safeParse(withoutText).error?.issues[0]?.path).toEqual(['text']);
    const extra = runResultSchema.safeParse({ ...result, finish_reason: 'stop' }).error?.issues[0];
    expect(extra?.code).toBe('unrecognized_keys');
    expect(runResultSchema.safeParse({ ...result, usage: { inputTokens: -1 } }).error?.issues[0]?.path).toEqual([
      'usage',
      'inputTokens',
    ]);
  });
});

describe('runCheckpointSchema', () => {
  it('accepts a checkpoint with defaults and rejects an unknown status', () => {
    const checkpoint = {
      runId: 'run-1',
      messages: [{ role: 'user', content: 'hi' }],
      allowedNames: [],
      inspectedNames: [],
      step: 0,
      usage: {},
      catalogVersion: {},
      updatedAt: 1,
    };
    expect(runCheckpointSchema.parse(checkpoint)).toMatchObject({
      status: 'running',
      pendingApprovals: [],
      executedToolCallIds: [],
    });
    expect(runCheckpointSchema.safeParse({ ...checkpoint, status: 'paused' }).error?.issues[0]?.path).toEqual([
      'status',
    ]);
  });
});
