import { describe, expect, it } from 'vitest';
import { kbDemoRunSpec, SAMPLE_KB } from './kb-demo-run-spec.js';

describe('kbDemoRunSpec', () => {
  it('turns on the sample KB and scripts kb_list then kb_search on it', () => {
    const spec = kbDemoRunSpec('scripted:demo');
    expect(spec.assistant.model).toBe('scripted:kb-demo');
    expect(spec.assistant.settings).toEqual({ knowledgeBases: [SAMPLE_KB] });
    const calls = (spec.assistant.script ?? []).flatMap((step) => ('toolCalls' in step ? step.toolCalls : []));
    expect(calls.map((call) => call.toolName)).toEqual(['kb_list', 'kb_search']);
    expect(calls[1]?.input).toMatchObject({ kb: SAMPLE_KB });
  });

  it('leaves a real model to decide, with the same knowledge base setting', () => {
    const spec = kbDemoRunSpec('openai:gpt-4o-mini');
    expect(spec.assistant).toMatchObject({ model: 'openai:gpt-4o-mini', settings: { knowledgeBases: [SAMPLE_KB] } });
    expect(spec.assistant.script).toBeUndefined();
  });
});
