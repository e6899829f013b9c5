import { describe, expect, it } from 'vitest';
import { runSpecSchema } from './run-spec.js';

const specWith = (settings: unknown) => ({
  assistant: { model: 'scripted:demo', settings },
  input: { prompt: 'x' },
});

describe('assistant settings of the builtin tools', () => {
  it('leaves every builtin tool off by default', () => {
    const settings = runSpecSchema.parse(specWith(undefined)).assistant.settings;
    expect(settings.webSearch).toBeUndefined();
    expect(settings.webFetch).toBeUndefined();
    expect(settings.knowledgeBases).toBeUndefined();
  });

  it('accepts web search on, off, or with a provider; web fetch; knowledge base names', () => {
    for (const webSearch of [{}, { provider: 'searxng' }, { provider: 'brave' }, { provider: 'tavily' }, false]) {
      expect(runSpecSchema.parse(specWith({ webSearch })).assistant.settings.webSearch).toEqual(webSearch);
    }
    const settings = runSpecSchema.parse(
      specWith({ webFetch: true, knowledgeBases: ['handbook', 'team-docs_2', '0ops'] }),
    ).assistant.settings;
    expect(settings).toMatchObject({ webFetch: true, knowledgeBases: ['handbook', 'team-docs_2', '0ops'] });
  });

  it('refuses unknown providers, bad knowledge base names and unknown settings, naming the field', () => {
    const refused = (settings: unknown) => {
      const parsed = runSpecSchema.safeParse(specWith(settings));
      expect(parsed.success).toBe(false);
      return parsed.error?.issues[0]?.path.join('.');
    };
    expect(refused({ webSearch: { provider: 'google' } })).toBe('assistant.settings.webSearch');
    expect(refused({ webSearch: true })).toBe('assistant.settings.webSearch');
    expect(refused({ webFetch: 'yes' })).toBe('assistant.settings.webFetch');
    expect(refused({ knowledgeBases: ['Handbook'] })).toBe('assistant.settings.knowledgeBases.0');
    expect(refused({ knowledgeBases: ['-x'] })).toBe('assistant.settings.knowledgeBases.0');
    expect(refused({ knowledgeBases: ['a'.repeat(64)] })).toBe('assistant.settings.knowledgeBases.0');
    expect(refused({ knowledgeBases: Array.from({ length: 65 }, (_, index) => `kb${index}`) })).toBe(
      'assistant.settings.knowledgeBases',
    );
    expect(refused({ webBrowse: true })).toBe('assistant.settings');
  });
});

describe('assistant settings: tool exposition', () => {
  const specFor = (model: string, toolExposition: unknown) => ({
    assistant: { model, settings: { toolExposition } },
    input: { prompt: 'x' },
  });

  it('takes auto, meta and native, and leaves the default to the worker', () => {
    expect(runSpecSchema.parse(specWith(undefined)).assistant.settings.toolExposition).toBeUndefined();
    for (const value of ['auto', 'meta'] as const) {
      expect(runSpecSchema.parse(specFor('openai-compatible:llama3', value)).assistant.settings.toolExposition).toBe(
        value,
      );
    }
    for (const model of ['anthropic:claude-sonnet-4-5', 'openai:gpt-5']) {
      expect(runSpecSchema.parse(specFor(model, 'native')).assistant.settings.toolExposition).toBe('native');
    }
  });

  it('refuses native for a provider without its own tool search, and unknown values, naming the field', () => {
    for (const spec of [specFor('openai-compatible:llama3', 'native'), specFor('scripted:demo', 'native')]) {
      const parsed = runSpecSchema.safeParse(spec);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toContain('assistant.settings.toolExposition');
    }
    const unknown = runSpecSchema.safeParse(specFor('openai:gpt-5', 'hosted'));
    expect(unknown.error?.issues[0]?.path.join('.')).toBe('assistant.settings.toolExposition');
  });
});
