import { describe, expect, it } from 'vitest';
import { analyzeText } from './analyze-text.js';

describe('analyzeText', () => {
  it('splits identifiers on the index side, keeping the whole word too', () => {
    expect(analyzeText('readTextFile get_file-info', 'index')).toEqual([
      'readtextfil',
      'read',
      'text',
      'file',
      'get',
      'file',
      'inform',
    ]);
  });

  it('keeps whole words on the query side: GitHub is not git + hub', () => {
    expect(analyzeText('GitHub PRs', 'query')).toEqual(['github', 'pr']);
    expect(analyzeText('GitHub', 'index')).toEqual(['github', 'git', 'hub']);
  });

  it('stems once, so a query word meets the same word in a tool name', () => {
    expect(analyzeText('close the browser', 'query')).toEqual(['close', 'browser']);
    expect(analyzeText('browser_close', 'index')).toEqual(['browser', 'close']);
    expect(analyzeText('database release', 'query')).toEqual(analyzeText('database release', 'index'));
    expect(
      new Set(['create', 'creates', 'created', 'creating'].map((word) => analyzeText(word, 'query')[0])).size,
    ).toBe(1);
  });

  it('maps lexicon spellings to one term on both sides', () => {
    expect(analyzeText('list pull requests', 'index')).toContain('pr');
    expect(analyzeText('my PRs', 'query')).toContain('pr');
    expect(analyzeText('repo', 'query')).toEqual(analyzeText('repository', 'index'));
    expect(analyzeText('k8s pods', 'query')).toContain('kubernet');
  });

  it('stems, lower-cases and drops stop words in prose', () => {
    expect(analyzeText('The Indexers are indexing indexed documents', 'index')).toEqual([
      'index',
      'index',
      'index',
      'document',
    ]);
  });

  it('drops words too long to be searched for, and stop words a caller adds', () => {
    expect(analyzeText(`token ${'x'.repeat(41)} tools`, 'index')).toEqual(['token', 'tool']);
    expect(analyzeText('the tools', 'query', new Set(['tools']))).toEqual([]);
  });
});
