import { digestOf, type RunCheckpoint } from '@agentq/shared';
import { generateText, jsonSchema, tool, type ModelMessage, type StepResult, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { approvalIdFor } from '../approvals/approval-id.js';
import { applyStep, type FinishedModelStep, type ModelLoopFrame, type StepToApply } from './apply-step.js';
import { freshCheckpoint } from './fresh-checkpoint.js';

const runId = 'run-apply';
const incarnation = 'incarnation-0123456789';
const now = 1_700_000_000_000;
const prompt: ModelMessage = { role: 'user', content: 'Tidy the repository.' };

function frame(overrides: Partial<ModelLoopFrame> = {}): ModelLoopFrame {
  return {
    runId,
    incarnation,
    baseMessages: [prompt],
    firstStep: 0,
    maxSteps: 10,
    approvalTimeoutMs: 60_000,
    schemaDigests: new Map([['github__delete_branch', 'schema-digest-1']]),
    wireNames: { github__delete_branch: 'github:delete_branch' },
    ...overrides,
  };
}

function start(): RunCheckpoint {
  return freshCheckpoint({
    runId,
    incarnation,
    now: now - 1_000,
    spec: { input: { prompt: 'Tidy the repository.' } } as Parameters<typeof freshCheckpoint>[0]['spec'],
  });
}

function step(overrides: Partial<FinishedModelStep> = {}): FinishedModelStep {
  return {
    stepNumber: 0,
    text: '',
    finishReason: 'stop',
    toolCalls: [],
    content: [],
    usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    response: { messages: [] },
    ...overrides,
  };
}

function apply(checkpoint: RunCheckpoint, result: FinishedModelStep, extra: Partial<StepToApply> = {}) {
  return applyStep(checkpoint, {
    result,
    frame: frame(),
    toolState: { allowedNames: ['fs__read'], inspectedNames: [] },
    now,
    ...extra,
  });
}

const answer: ModelMessage = { role: 'assistant', content: [{ type: 'text', text: 'All tidy.' }] };
const readCall = { type: 'tool-call' as const, toolCallId: 'call-read', toolName: 'fs__read', input: { path: '/a' } };
const readTurn: ModelMessage[] = [
  { role: 'assistant', content: [readCall] },
  {
    role: 'tool',
    content: [
      { type: 'tool-result', toolCallId: 'call-read', toolName: 'fs__read', output: { type: 'json', value: 'A' } },
    ],
  },
];
const deleteCall = {
  type: 'tool-call' as const,
  toolCallId: 'call-delete',
  toolName: 'github__delete_branch',
  input: { branch: 'old' },
};
const deleteRequest = { type: 'tool-approval-request' as const, approvalId: 'sdk-approval-1', toolCall: deleteCall };

describe('applyStep', () => {
  it('completes the run on a step without tool calls, with nothing to report as progress', () => {
    const applied = apply(start(), step({ text: 'All tidy.', response: { messages: [answer] } }));
    expect(applied.checkpoint).toMatchObject({
      step: 1,
      status: 'completed',
      messages: [prompt, answer],
      steps: [{ step: 0, text: 'All tidy.', finishReason: 'stop', toolCalls: [], usage: { totalTokens: 15 } }],
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
      pendingApprovals: [],
      executedToolCallIds: [],
      updatedAt: now,
    });
    expect(applied.approvalRequests).toEqual([]);
    expect(applied.progress).toBeUndefined();
  });

  it('records executed tool calls with their results and reports the step as progress', () => {
    const applied = apply(
      start(),
      step({
        finishReason: 'tool-calls',
        toolCalls: [readCall],
        content: [readCall],
        response: { messages: readTurn },
      }),
    );
    expect(applied.checkpoint.status).toBe('running');
    expect(applied.checkpoint.step).toBe(1);
    expect(applied.checkpoint.messages).toEqual([prompt, ...readTurn]);
    expect(applied.checkpoint.executedToolCallIds).toEqual(['call-read']);
    expect(applied.checkpoint.toolCalls).toEqual([
      { toolCallId: 'call-read', toolName: 'fs__read', input: { path: '/a' }, output: 'A', isError: false, step: 0 },
    ]);
    expect(applied.checkpoint.steps[0]?.toolCalls).toEqual(['call-read']);
    expect(applied.progress).toEqual({ step: 1, lastTool: 'fs__read', status: 'running' });
  });

  it('turns a gated call into a pending approval and an approval request under the run approval id', () => {
    const trace = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' };
    const assistant: ModelMessage = {
      role: 'assistant',
      content: [deleteCall, { type: 'tool-approval-request', approvalId: 'sdk-approval-1', toolCallId: 'call-delete' }],
    };
    (assistant.content[1] as { signature?: string }).signature = 'sdk-signature';
    const applied = apply(
      start(),
      step({
        finishReason: 'tool-calls',
        toolCalls: [deleteCall],
        content: [deleteCall, deleteRequest],
        response: { messages: [assistant] },
      }),
      { trace },
    );
    const approvalId = approvalIdFor({ runId, incarnation, toolCallId: 'call-delete' });
    const argsDigest = digestOf({ branch: 'old' });
    expect(applied.approvalRequests).toEqual([
      {
        approvalId,
        runId,
        incarnation,
        toolCallId: 'call-delete',
        toolName: 'github__delete_branch',
        serverId: 'github',
        input: { branch: 'old' },
        argsDigest,
        schemaDigest: 'schema-digest-1',
        requestedAt: now,
        expiresAt: now + 60_000,
        trace,
      },
    ]);
    expect(applied.checkpoint.pendingApprovals).toEqual([
      {
        approvalId,
        toolCallId: 'call-delete',
        toolName: 'github__delete_branch',
        argsDigest,
        schemaDigest: 'schema-digest-1',
        childAdded: false,
      },
    ]);
    expect(applied.checkpoint.status).toBe('waiting-approval');
    // The stored request carries the run's id and no SDK signature: resumes sign again from records.
    expect(applied.checkpoint.messages[1]).toEqual({
      role: 'assistant',
      content: [deleteCall, { type: 'tool-approval-request', approvalId, toolCallId: 'call-delete' }],
    });
    expect(applied.progress).toEqual({ step: 1, lastTool: 'github__delete_branch', status: 'waiting-approval' });
  });

  it('waits for approvals even on the last allowed step, and never counts a gated call as executed', () => {
    const gated = { ...deleteCall, toolName: 'shell__run', toolCallId: 'call-shell', input: undefined };
    const applied = applyStep(start(), {
      result: step({
        finishReason: 'tool-calls',
        toolCalls: [readCall, gated],
        content: [readCall, gated, { type: 'tool-approval-request', approvalId: 'sdk-2', toolCall: gated }],
        response: {
          messages: [
            { role: 'assistant', content: [readCall, gated] },
            ...readTurn.slice(1),
            // A result the SDK put in for the gated call does not make it executed.
            {
              role: 'tool',
              content: [
                {
                  type: 'tool-result',
                  toolCallId: 'call-shell',
                  toolName: 'shell__run',
                  output: { type: 'text', value: '?' },
                },
              ],
            },
          ],
        },
      }),
      frame: frame({ maxSteps: 1 }),
      toolState: { allowedNames: [], inspectedNames: [] },
      now,
    });
    expect(applied.checkpoint.status).toBe('waiting-approval');
    expect(applied.checkpoint.executedToolCallIds).toEqual(['call-read']);
    // A tool outside the catalog: no server, and the digest of "no schema"; no input counts as `{}`.
    expect(applied.approvalRequests[0]).toMatchObject({
      toolName: 'shell__run',
      input: {},
      argsDigest: digestOf({}),
      schemaDigest: digestOf(null),
    });
    expect(applied.approvalRequests[0]).not.toHaveProperty('serverId');
    expect(applied.approvalRequests[0]).not.toHaveProperty('trace');
  });

  it('completes the run on the last allowed step even when it called tools', () => {
    const later = { ...start(), step: 3 };
    const result = step({ stepNumber: 1, finishReason: 'tool-calls', toolCalls: [readCall] });
    const applied = apply(later, result, { frame: frame({ firstStep: 2, maxSteps: 4 }) });
    expect(applied.checkpoint.step).toBe(4);
    expect(applied.checkpoint.steps.at(-1)?.step).toBe(3);
    expect(applied.checkpoint.status).toBe('completed');
    expect(applied.progress).toBeUndefined();
  });

  it('numbers steps from the step the loop started at', () => {
    const resumed = { ...start(), step: 5 };
    const result = step({ stepNumber: 2, finishReason: 'tool-calls', toolCalls: [readCall] });
    const applied = apply(resumed, result, { frame: frame({ firstStep: 5 }) });
    expect(applied.checkpoint.step).toBe(8);
    expect(applied.checkpoint.steps.at(-1)?.step).toBe(7);
    expect(applied.progress?.step).toBe(8);
  });

  it('accumulates usage, with cache counts once a provider reports them and missing counts as zero', () => {
    const first = apply(
      start(),
      step({
        finishReason: 'tool-calls',
        toolCalls: [readCall],
        response: { messages: readTurn },
        usage: { inputTokens: 100, outputTokens: 20, inputTokenDetails: { cacheReadTokens: 80 } },
      }),
    );
    expect(first.checkpoint.usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      totalTokens: 120,
      cacheReadInputTokens: 80,
    });
    const second = apply(
      first.checkpoint,
      step({
        stepNumber: 1,
        response: { messages: [...readTurn, answer] },
        usage: { outputTokens: 7, totalTokens: 9, inputTokenDetails: { cacheWriteTokens: 3 } },
      }),
      { frame: frame() },
    );
    expect(second.checkpoint.steps[1]?.usage).toEqual({
      inputTokens: 0,
      outputTokens: 7,
      totalTokens: 9,
      cacheCreationInputTokens: 3,
    });
    expect(second.checkpoint.usage).toEqual({
      inputTokens: 100,
      outputTokens: 27,
      totalTokens: 129,
      cacheReadInputTokens: 80,
      cacheCreationInputTokens: 3,
    });
    expect(second.checkpoint.steps.map((each) => each.step)).toEqual([0, 1]);
  });

  it('records a call the model got wrong with its error result, as answered', () => {
    const invalid = { type: 'tool-call' as const, toolCallId: 'call-bad', toolName: 'fs__read', input: 'not json' };
    const messages: ModelMessage[] = [
      { role: 'assistant', content: [invalid] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call-bad',
            toolName: 'fs__read',
            output: { type: 'error-text', value: 'Invalid input for tool fs__read' },
          },
        ],
      },
    ];
    const applied = apply(start(), step({ finishReason: 'tool-calls', toolCalls: [invalid], response: { messages } }));
    expect(applied.checkpoint.executedToolCallIds).toEqual(['call-bad']);
    expect(applied.checkpoint.toolCalls[0]).toMatchObject({ toolCallId: 'call-bad', isError: true });
  });

  it('keeps the tool state as the step left it, as a copy', () => {
    const toolState = { allowedNames: ['fs__read', 'tool_invoke'], inspectedNames: ['fs__read'] };
    const applied = apply(start(), step({ response: { messages: [answer] } }), { toolState });
    toolState.allowedNames.push('later');
    toolState.inspectedNames.push('later');
    expect(applied.checkpoint.allowedNames).toEqual(['fs__read', 'tool_invoke']);
    expect(applied.checkpoint.inspectedNames).toEqual(['fs__read']);
  });

  it('is pure: the input checkpoint is left as it was, and the same input gives the same output', () => {
    const checkpoint = deepFreeze(start());
    const result = deepFreeze(
      step({
        finishReason: 'tool-calls',
        toolCalls: [deleteCall],
        content: [deleteCall, deleteRequest],
        response: {
          messages: [
            {
              role: 'assistant',
              content: [
                deleteCall,
                { type: 'tool-approval-request', approvalId: 'sdk-approval-1', toolCallId: 'call-delete' },
              ],
            },
          ],
        },
      }),
    );
    const first = apply(checkpoint, result);
    expect(apply(checkpoint, result)).toEqual(first);
    expect(checkpoint.step).toBe(0);
    expect(checkpoint.messages).toEqual([prompt]);
  });

  it("folds the AI SDK's own step results", async () => {
    const tools = {
      github__delete_branch: tool({
        inputSchema: jsonSchema<{ branch: string }>({ type: 'object', properties: { branch: { type: 'string' } } }),
        needsApproval: true,
        execute: async () => 'deleted',
      }),
    };
    const usage = {
      inputTokens: { total: 12, noCache: 2, cacheRead: 10, cacheWrite: undefined },
      outputTokens: { total: 4, text: 4, reasoning: undefined },
    };
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({
        content: [
          {
            type: 'tool-call',
            toolCallId: 'call-delete',
            toolName: 'github__delete_branch',
            input: '{"branch":"old"}',
          },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage,
        warnings: [],
      }),
    });
    const steps: Array<StepResult<ToolSet>> = [];
    await generateText({ model, tools, messages: [prompt], onStepFinish: (each) => void steps.push(each) });
    expect(steps).toHaveLength(1);
    const applied = apply(start(), steps[0] as StepResult<ToolSet>);
    const approvalId = approvalIdFor({ runId, incarnation, toolCallId: 'call-delete' });
    expect(applied.approvalRequests).toMatchObject([{ approvalId, input: { branch: 'old' }, serverId: 'github' }]);
    expect(applied.checkpoint.status).toBe('waiting-approval');
    expect(applied.checkpoint.usage).toEqual({
      inputTokens: 12,
      outputTokens: 4,
      totalTokens: 16,
      cacheReadInputTokens: 10,
    });
    const request = (applied.checkpoint.messages[1]?.content as Array<Record<string, unknown>>).find(
      (part) => part.type === 'tool-approval-request',
    );
    expect(request).toEqual({ type: 'tool-approval-request', approvalId, toolCallId: 'call-delete' });
  });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
