import { generateText, stepCountIs, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createScriptedModel, scriptedToolCallId } from './scripted-model.js';

describe('createScriptedModel', () => {
  const script = [{ toolCalls: [{ toolName: 'add', input: { a: 1, b: 2 } }] }, { text: 'three' }];

  it('plays its script through generateText, calling tools with deterministic ids', async () => {
    const seen: string[] = [];
    const result = await generateText({
      model: createScriptedModel({ modelId: 'test', script }),
      prompt: 'add',
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async ({ a, b }, { toolCallId }) => {
            seen.push(toolCallId);
            return a + b;
          },
        }),
      },
      stopWhen: stepCountIs(5),
    });
    expect(result.text).toBe('three');
    expect(result.steps).toHaveLength(2);
    expect(seen).toEqual([scriptedToolCallId(0, 0)]);
  });

  it('waits out a step delay, and an abort ends the wait at once', async () => {
    const slow = createScriptedModel({ modelId: 'test', script: [{ text: 'late', delayMs: 60_000 }] });
    const controller = new AbortController();
    const pending = generateText({ model: slow, prompt: 'wait', abortSignal: controller.signal, maxRetries: 0 });
    setTimeout(() => controller.abort(new Error('stop waiting')), 10);
    await expect(pending).rejects.toThrow('stop waiting');
    const quick = createScriptedModel({ modelId: 'test', script: [{ text: 'soon', delayMs: 1 }] });
    expect((await generateText({ model: quick, prompt: 'wait' })).text).toBe('soon');
  });

  it('derives its step from the prompt, so a resumed conversation continues where it stopped', async () => {
    const model = createScriptedModel({ modelId: 'test', script });
    const result = await model.doGenerate({
      prompt: [
        { role: 'user', content: [{ type: 'text', text: 'add' }] },
        { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_0_0', toolName: 'add', input: {} }] },
        {
          role: 'tool',
          content: [
            { type: 'tool-result', toolCallId: 'call_0_0', toolName: 'add', output: { type: 'json', value: 3 } },
          ],
        },
      ],
    });
    expect(result.content).toEqual([{ type: 'text', text: 'three' }]);
    expect(result.finishReason.unified).toBe('stop');
  });

  it('answers with the final text once the script has run out', async () => {
    const model = createScriptedModel({ modelId: 'test', script: [], finalText: () => 'the end' });
    const result = await model.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(result.content).toEqual([{ type: 'text', text: 'the end' }]);
  });

  it('streams the same content it generates', async () => {
    const model = createScriptedModel({ modelId: 'test', script });
    const { stream } = await model.doStream({ prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    const parts: Array<{ type: string }> = [];
    const reader = stream.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
    }
    expect(parts.map((part) => part.type)).toEqual(['stream-start', 'tool-call', 'finish']);
  });
});
