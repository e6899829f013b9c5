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
