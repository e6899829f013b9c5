import { describe, expect, it } from 'vitest';
import { chunkSections } from './chunk-sections.js';
import { markdownSections } from './markdown-sections.js';

describe('markdownSections', () => {
  it('names sections by heading path and ignores headings inside code fences', () => {
    const { title, sections } = markdownSections(
      [
        'intro line',
        '# Guide',
        'top',
        '## Setup',
        'install it',
        '```',
        '# not a heading',
        '```',
        '### Redis ##',
        'run redis',
        '## Use',
        'go',
      ].join('\n'),
    );
    expect(title).toBe('Guide');
    expect(sections.map((section) => section.heading)).toEqual([
      undefined,
      'Guide',
      'Guide > Setup',
      'Guide > Setup > Redis',
      'Guide > Use',
    ]);
    expect(sections[2]?.text).toContain('# not a heading');
  });
});

describe('chunkSections', () => {
  it('never spans two sections, overlaps inside one, and is deterministic', () => {
    const words = Array.from({ length: 600 }, (_, index) => `word${index}`).join(' ');
    const sections = [
      { heading: 'A', text: words },
      { heading: 'B', text: 'short text' },
    ];
    const chunks = chunkSections(sections, { size: 400, overlap: 80 });
    expect(chunks.at(-1)).toMatchObject({ heading: 'B', text: 'short text' });
    const first = chunks.filter((chunk) => chunk.heading === 'A');
    expect(first.length).toBeGreaterThan(5);
    for (const chunk of first) expect(chunk.text.length).toBeLessThanOrEqual(400);
    // Every word of the section is in some chunk, and consecutive chunks share text.
    const joined = new Set(first.flatMap((chunk) => chunk.text.split(' ')));
    for (let index = 0; index < 600; index += 1) expect(joined.has(`word${index}`)).toBe(true);
    for (let index = 1; index < first.length; index += 1) {
      const previousWords = new Set((first[index - 1]?.text ?? '').split(' '));
      expect((first[index]?.text ?? '').split(' ').some((word) => previousWords.has(word))).toBe(true);
    }
    expect(chunkSections(sections, { size: 400, overlap: 80 })).toEqual(chunks);
    expect(chunks.map((chunk) => chunk.ordinal)).toEqual(chunks.map((_, index) => index));
  });

  it('keeps the page of paged sections', () => {
    expect(chunkSections([{ page: 3, text: 'hello' }])).toEqual([{ ordinal: 0, page: 3, text: 'hello' }]);
  });
});
