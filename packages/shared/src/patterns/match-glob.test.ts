import { describe, expect, it } from 'vitest';
import { matchesAnyGlob, matchGlob } from './match-glob.js';

describe('matchGlob', () => {
  it('treats * as any run of characters, including none', () => {
    expect(matchGlob('mcp__github__*', 'mcp__github__createIssue')).toBe(true);
    expect(matchGlob('mcp__github__*', 'mcp__github__')).toBe(true);
    expect(matchGlob('mcp__github__*', 'mcp__gitlab__createIssue')).toBe(false);
    expect(matchGlob('*', '')).toBe(true);
    expect(matchGlob('*', 'anything')).toBe(true);
    expect(matchGlob('a*b*c', 'abc')).toBe(true);
    expect(matchGlob('a*b*c', 'axxbyyc')).toBe(true);
    expect(matchGlob('a*b*c', 'axxbyy')).toBe(false);
    expect(matchGlob('*write*', 'fs:write_file')).toBe(true);
  });

  it('takes every other character literally', () => {
    expect(matchGlob('fs:write.file', 'fs:writeXfile')).toBe(false);
    expect(matchGlob('fs:write.file', 'fs:write.file')).toBe(true);
    expect(matchGlob('a+b', 'aab')).toBe(false);
    expect(matchGlob('(a|b)', 'a')).toBe(false);
    expect(matchGlob('[ab]', '[ab]')).toBe(true);
  });

  it('does not let the anchored head and tail overlap', () => {
    expect(matchGlob('ab*ba', 'aba')).toBe(false);
    expect(matchGlob('ab*ba', 'abba')).toBe(true);
    expect(matchGlob('a*a', 'a')).toBe(false);
  });

  it('answers for patterns that make a backtracking regex explode', () => {
    expect(matchGlob(`${'*'.repeat(10_000)}X`, 'a'.repeat(10_000))).toBe(false);
    expect(matchGlob(`${'*a'.repeat(5_000)}X`, 'a'.repeat(10_000))).toBe(false);
  });
});

describe('matchesAnyGlob', () => {
  it('matches when one pattern does', () => {
    expect(matchesAnyGlob(['x', 'mcp__*'], 'mcp__a')).toBe(true);
    expect(matchesAnyGlob([], 'mcp__a')).toBe(false);
  });
});
