import { AgentqError } from '@agentq/shared';
import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { parseStepAnswer, reviveStepAnswer, stepAnswerRecord, StepAnswers } from './step-answers.js';

const usage: LanguageModelV3GenerateResult['usage'] = {
  inputTokens: { total: 12, noCache: 10, cacheRead: 2, cacheWrite: undefined },
  outputTokens: { total: 7, text: 5, reasoning: 2 },
};

function answer(toolCallId: string): LanguageModelV3GenerateResult {
  return {
    content: [
      { type: 'reasoning', text: 'count once', providerMetadata: { anthropic: { signature: 'sig' } } },
      { type: 'text', text: 'counting' },
      {
        type: 'tool-call',
        toolCallId,
        toolName: 'mcp__counter__counterIncrement',
        input: '{"note":"side-effect"}',
        providerMetadata: { openai: { itemId: 'item-1' } },
      },
    ],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    providerMetadata: { openai: { responseId: 'resp-1' } },
    response: { id: 'resp-1', modelId: 'm', timestamp: new Date('2026-12-02T07:00:00.000Z') },
    warnings: [],
  };
}

const callOptions = { prompt: [] } as unknown as LanguageModelV3CallOptions;

/** A model answering with a new tool call id each time, and a store keeping what is recorded. */
function setup(options: { incarnation?: string; recorded?: string } = {}) {
  let calls = 0;
  const model = new MockLanguageModelV3({ doGenerate: async () => answer(`call_${++calls}`) });
  const writes: string[] = [];
  const store = { recordStepAnswer: async ({ record }: { record: string }) => void writes.push(record) };
  const answers = new StepAnswers({
    store,
    runId: 'r1',
    incarnation: options.incarnation ?? 'inc-1',
    fence: undefined,
    recorded: options.recorded === undefined ? undefined : parseStepAnswer('r1', options.recorded),
  });
  const generate = async (step: number) => {
    answers.step = step;
    return await answers.wrap(model).doGenerate(callOptions);
  };
  return { generate, writes, calls: () => calls };
}

describe('step answer records', () => {
  it('revive as the answer they were made of: text, reasoning, tool calls, usage and response', () => {
    const original = answer('call_A');
    const text = stepAnswerRecord({ incarnation: 'inc-1', step: 3, result: original });
    const record = parseStepAnswer('r1', text as string);
    expect(record).toMatchObject({ incarnation: 'inc-1', step: 3 });
    expect(reviveStepAnswer(record)).toEqual(original);
    expect(reviveStepAnswer(record).response?.timestamp).toBeInstanceOf(Date);
  });

  it('leave out request and response bodies and headers', () => {
    const text = stepAnswerRecord({
      incarnation: 'inc-1',
      step: 0,
      result: {
        ...answer('call_A'),
        request: { body: 'secret-request' },
        response: { id: 'x', headers: { authorization: 'secret-header' }, body: 'secret-body' },
      },
    });
    expect(text).not.toMatch(/secret/);
  });

  it('are not made of an answer with a file given as bytes', () => {
    const result = answer('call_A');
    result.content.push({ type: 'file', mediaType: 'image/png', data: new Uint8Array([1, 2]) });
    expect(stepAnswerRecord({ incarnation: 'inc-1', step: 0, result })).toBeUndefined();
  });

  it('fail the run with RUN_STATE_CORRUPT when unreadable', () => {
    for (const text of ['{not json', '{"incarnation":"inc-1","step":0,"answer":{"content":[{"type":"tool-call"}]}}']) {
      let thrown: unknown;
      try {
        parseStepAnswer('r1', text);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AgentqError);
      expect((thrown as AgentqError).code).toBe('RUN_STATE_CORRUPT');
    }
  });
});

describe('StepAnswers', () => {
  it('records an answer that calls tools before returning it, and one without tool calls not', async () => {
    const { generate, writes } = setup();
    const first = await generate(2);
    expect(writes).toHaveLength(1);
    expect(reviveStepAnswer(parseStepAnswer('r1', writes[0] as string))).toEqual(first);
    expect(parseStepAnswer('r1', writes[0] as string).step).toBe(2);

    const quiet = new StepAnswers({
      store: { recordStepAnswer: async () => void writes.push('unexpected') },
      runId: 'r1',
      incarnation: 'inc-1',
      fence: undefined,
    });
    quiet.step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => ({ ...answer('x'), content: [{ type: 'text', text: 'done' }] }),
    });
    await quiet.wrap(model).doGenerate(callOptions);
    expect(writes).toHaveLength(1);
  });

  it('replays the recorded answer for its step, with its tool call ids, instead of asking the model', async () => {
    const recorded = stepAnswerRecord({ incarnation: 'inc-1', step: 4, result: answer('call_A') });
    const { generate, writes, calls } = setup({ recorded });
    const replayed = await generate(4);
    expect(calls()).toBe(0);
    expect(writes).toHaveLength(0);
    expect(replayed).toEqual(answer('call_A'));
  });

  it('never replays a record into another step, nor twice', async () => {
    const recorded = stepAnswerRecord({ incarnation: 'inc-1', step: 4, result: answer('call_A') });
    const later = setup({ recorded });
    const next = await later.generate(5);
    expect(later.calls()).toBe(1);
    expect(next.content).toContainEqual(expect.objectContaining({ toolCallId: 'call_1' }));

    const twice = setup({ recorded });
    await twice.generate(4);
    const again = await twice.generate(4);
    expect(twice.calls()).toBe(1);
    expect(again.content).toContainEqual(expect.objectContaining({ toolCallId: 'call_1' }));
  });

  it('never replays a record of an earlier run under the same id', async () => {
    const recorded = stepAnswerRecord({ incarnation: 'inc-0', step: 4, result: answer('call_A') });
    const { generate, calls } = setup({ recorded });
    await generate(4);
    expect(calls()).toBe(1);
  });
});
