import { generateText, InvalidToolInputError, NoSuchToolError, stepCountIs, type ToolSet } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toolJsonSchema } from '../exposition/estimate-tool-tokens.js';
import { makeTool } from '../test-support/fixtures.js';
import { createToolCallRepair } from './create-tool-call-repair.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

function textModel(...texts: string[]) {
  let call = 0;
  return new MockLanguageModelV3({
    doGenerate: async () => {
      const text = texts[Math.min(call, texts.length - 1)] ?? '';
      call += 1;
      return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
    },
  });
}

function failingModel() {
  return new MockLanguageModelV3({
    doGenerate: async () => {
      throw new Error('provider down');
    },
  });
}

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' } },
  required: ['city'],
  additionalProperties: false,
};
const tools: ToolSet = {
  forecast: makeTool({ schema }),
  takes_arguments: makeTool({
    schema: {
      type: 'object',
      properties: { arguments: { type: 'string' }, city: { type: 'string' } },
      additionalProperties: false,
    },
  }),
};

function repairInput(toolName: string, input: string, error?: unknown) {
  return {
    system: undefined,
    messages: [{ role: 'user' as const, content: 'weather please' }],
    toolCall: { type: 'tool-call' as const, toolCallId: 't1', toolName, input },
    tools,
    inputSchema: async ({ toolName: name }: { toolName: string }) => toolJsonSchema(tools[name] as never) as never,
    error: (error ??
      new InvalidToolInputError({ toolName, toolInput: input, cause: new Error('bad') })) as InvalidToolInputError,
  };
}

describe('createToolCallRepair', () => {
  it('returns null for an unknown tool without calling the model, and reports it as a candidate', async () => {
    const model = textModel('{"city":"Oslo"}');
    const candidates: unknown[] = [];
    const repair = createToolCallRepair({ model, onCandidate: (candidate) => candidates.push(candidate) });
    const result = await repair(repairInput('nope', '{}', new NoSuchToolError({ toolName: 'nope' })));
    expect(result).toBeNull();
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(candidates).toEqual([{ toolCallId: 't1', toolName: 'nope', reason: 'unknown-tool' }]);
  });

  it('reports input it could not repair as a candidate, and nothing for input it repaired', async () => {
    const candidates: unknown[] = [];
    const onCandidate = (candidate: unknown) => candidates.push(candidate);
    const fixed = createToolCallRepair({ model: textModel('{"city":"Lima"}'), onCandidate });
    expect(await fixed(repairInput('forecast', '{"town":"Lima"}'))).not.toBeNull();
    expect(candidates).toEqual([]);
    const broken = createToolCallRepair({ model: textModel('{"town":"Lima"}'), onCandidate });
    expect(await broken(repairInput('forecast', '{"town":"Lima"}'))).toBeNull();
    const failing = createToolCallRepair({ model: failingModel(), onCandidate });
    expect(await failing(repairInput('forecast', '{"town":"Lima"}'))).toBeNull();
    expect(candidates).toEqual([
      { toolCallId: 't1', toolName: 'forecast', reason: 'invalid-input' },
      { toolCallId: 't1', toolName: 'forecast', reason: 'invalid-input' },
    ]);
  });

  it('fixes double-encoded JSON without a model call', async () => {
    const model = textModel('{"city":"never used"}');
    const repair = createToolCallRepair({ model });
    const result = await repair(repairInput('forecast', JSON.stringify(JSON.stringify({ city: 'Oslo' }))));
    expect(JSON.parse(result?.input ?? 'null')).toEqual({ city: 'Oslo' });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('unwraps an { arguments } envelope without a model call', async () => {
    const model = textModel('{"city":"never used"}');
    const repair = createToolCallRepair({ model });
    const plain = await repair(repairInput('forecast', JSON.stringify({ arguments: { city: 'Rome', days: 2 } })));
    expect(JSON.parse(plain?.input ?? 'null')).toEqual({ city: 'Rome', days: 2 });
    const encoded = await repair(
      repairInput('forecast', JSON.stringify({ arguments: JSON.stringify({ city: 'Rome' }) })),
    );
    expect(JSON.parse(encoded?.input ?? 'null')).toEqual({ city: 'Rome' });
    expect(model.doGenerateCalls).toHaveLength(0);
  });

  it('keeps a real arguments field when the schema has one', async () => {
    const model = textModel('{"arguments":"from the model"}');
    const repair = createToolCallRepair({ model });
    // Unwrapping would give { city: 'Oslo' }, which is valid, but `arguments` is a real parameter
    // here, so the repair must not strip it and asks the model instead.
    const result = await repair(repairInput('takes_arguments', JSON.stringify({ arguments: { city: 'Oslo' } })));
    expect(JSON.parse(result?.input ?? 'null')).toEqual({ arguments: 'from the model' });
    expect(model.doGenerateCalls).toHaveLength(1);
  });

  it('makes exactly one model call and validates its answer', async () => {
    const model = textModel('{"city":"Lima","days":3}');
    const repair = createToolCallRepair({ model });
    const result = await repair(repairInput('forecast', '{"town":"Lima"}'));
    expect(JSON.parse(result?.input ?? 'null')).toEqual({ city: 'Lima', days: 3 });
    expect(result?.toolCallId).toBe('t1');
    expect(model.doGenerateCalls).toHaveLength(1);
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('forecast');
    expect(prompt).toContain('weather please');
  });

  it('returns null when the model answers something invalid, empty, or fails', async () => {
    for (const model of [textModel('{"town":"Lima"}'), textModel(''), textModel('not json'), failingModel()]) {
      const repair = createToolCallRepair({ model });
      expect(await repair(repairInput('forecast', '{"town":"Lima"}'))).toBeNull();
      expect(model.doGenerateCalls).toHaveLength(1);
    }
  });

  it('plugs into generateText as experimental_repairToolCall', async () => {
    const executed: unknown[] = [];
    const forecast = makeTool({ schema, execute: (input) => executed.push(input) });
    let call = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        call += 1;
        if (call === 1) {
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'c1',
                toolName: 'forecast',
                input: JSON.stringify(JSON.stringify({ city: 'Oslo' })),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      tools: { forecast },
      prompt: 'weather',
      stopWhen: stepCountIs(3),
      experimental_repairToolCall: createToolCallRepair({ model }),
    });
    expect(executed).toEqual([{ city: 'Oslo' }]);
    expect(result.text).toBe('done');
    expect(model.doGenerateCalls).toHaveLength(2);
  });

  describe('image and file URLs in the messages', () => {
    const withImage = () => ({
      ...repairInput('forecast', '{"town":"Oslo"}'),
      messages: [
        {
          role: 'user' as const,
          content: [
            { type: 'text' as const, text: 'weather for the city in this picture' },
            { type: 'image' as const, image: new URL('https://images.example/city.png') },
          ],
        },
      ],
    });

    afterEach(() => {
      vi.unstubAllGlobals();
    });

    it("fetches them through the run's own download, never the SDK's", async () => {
      const direct = vi.fn(async () => new Response('bytes', { headers: { 'content-type': 'image/png' } }));
      vi.stubGlobal('fetch', direct);
      const asked: string[] = [];
      const model = textModel('{"city":"Oslo"}');
      const repair = createToolCallRepair({
        model,
        download: async (requested) =>
          requested.map(({ url }) => {
            asked.push(url.href);
            return { data: new Uint8Array([1, 2, 3]), mediaType: 'image/png' };
          }),
      });
      const repaired = await repair(withImage());
      expect(repaired?.input).toBe('{"city":"Oslo"}');
      expect(asked).toEqual(['https://images.example/city.png']);
      expect(direct).not.toHaveBeenCalled();
      const sent = JSON.stringify(model.doGenerateCalls[0]?.prompt);
      expect(sent).not.toContain('images.example');
    });

    it('fetches nothing without a download, and gives the repair up', async () => {
      const direct = vi.fn(async () => new Response('bytes', { headers: { 'content-type': 'image/png' } }));
      vi.stubGlobal('fetch', direct);
      const reported: string[] = [];
      const model = textModel('{"city":"Oslo"}');
      const repair = createToolCallRepair({ model, onCandidate: (candidate) => reported.push(candidate.reason) });
      expect(await repair(withImage())).toBeNull();
      expect(direct).not.toHaveBeenCalled();
      expect(model.doGenerateCalls).toHaveLength(0);
      expect(reported).toEqual(['invalid-input']);
    });
  });
});
