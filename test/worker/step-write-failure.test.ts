import { runSpecSchema } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { firstStartJob, useDirectProcessorOverCachedServer } from './helpers/direct-run-processor.js';

// A step whose write fails stops the attempt there: no later model call, no later tool call, so
// nothing runs whose predecessor is not stored.
describe('a step that could not be written', () => {
  const suite = useDirectProcessorOverCachedServer();
  const spec = runSpecSchema.parse({
    assistant: {
      model: 'scripted:test',
      mcpServers: ['svc'],
      script: [
        { toolCalls: [{ toolName: 'mcp__svc__act', input: { call: 'first' } }] },
        { toolCalls: [{ toolName: 'mcp__svc__act', input: { call: 'second' } }] },
        { text: 'done' },
      ],
    },
    input: { prompt: 'act twice' },
  });

  it('ends the attempt with the write error before the next model step', async () => {
    const { direct } = suite;
    const job = await firstStartJob(direct.runs, { runId: 'unwritten-step', spec });
    const write = direct.store.write;
    let writes = 0;
    direct.store.write = async (...args: Parameters<typeof write>) => {
      writes += 1;
      if (writes === 1) throw new Error('the store refused this step');
      return await write.apply(direct.store, args);
    };
    const failure = await direct.processor(job).catch((error: unknown) => error);
    direct.store.write = write;
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toContain('the store refused this step');
    expect(suite.calls.map((call) => call.input)).toEqual([{ call: 'first' }]);
    expect(writes).toBe(1);
    expect(await direct.store.read('unwritten-step')).toBeNull();
    // The model was asked once: the answer recorded before the tools ran is the first step's.
    const answer = JSON.parse((await direct.store.readStepAnswer('unwritten-step')) ?? '{}') as { step?: number };
    expect(answer.step).toBe(0);
  });
});
