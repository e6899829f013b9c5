import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  buildNewsPage,
  NEWS_PAGE_FURNITURE,
  NEWS_PAGE_SECTION_MARKERS,
  NEWS_PAGE_TITLE,
} from '../test-support/news-page.js';
import { htmlToMarkdown } from './html-to-markdown.js';

const article = await readFile(new URL('../test-support/article.html', import.meta.url), 'utf8');

describe('htmlToMarkdown', () => {
  it('converts the article of a page, with its headings, lists, links and code', () => {
    const page = htmlToMarkdown(article);
    expect(page).toMatchObject({ article: true, pruned: false });
    expect(page.title).toContain('Reading the tide tables');
    expect(page.markdown).toMatch(/^## Planning a walk$/m);
    expect(page.markdown).toMatch(/^-\s+\*\*Low water\*\*/m);
    expect(page.markdown).toContain('```\nlow water 13:42  0.4 m\nhigh water 19:58  5.1 m\n```');
    expect(page.markdown).not.toContain('Buy waterproof boots');
  });

  it('leaves out the text past maxTextChars, keeping the Markdown of what comes before', () => {
    const whole = htmlToMarkdown(article).markdown;
    const page = htmlToMarkdown(article, { maxTextChars: 900 });
    expect(page.pruned).toBe(true);
    expect(page.markdown.length).toBeLessThan(whole.length);
    expect(page.markdown).toContain('## What a line of the table says');
    expect(page.markdown).not.toContain('Planning a walk');
    // What is kept converts exactly as in the whole page.
    expect(whole.startsWith(page.markdown.slice(0, 400))).toBe(true);
    expect(htmlToMarkdown(article, { maxTextChars: 1_000_000 }).pruned).toBe(false);
  });

  it('converts the body of a page that has no article', () => {
    const page = htmlToMarkdown('<html><head><title>T</title></head><body><p>Just <b>one</b> line.</p></body></html>');
    expect(page.markdown).toContain('Just **one** line.');
    expect(page.title).toBe('T');
  });

  it('converts a fragment or a bare text, which have no <html> or <body>', () => {
    expect(htmlToMarkdown('<p>first <a href="https://example.org/">link</a></p>').markdown).toBe(
      'first [link](https://example.org/)',
    );
    expect(htmlToMarkdown('only text').markdown).toBe('only text');
  });

  it('keeps the article of a 200 KB news page and none of its menus, sidebar, forms or scripts', () => {
    const page = htmlToMarkdown(buildNewsPage(), { maxTextChars: 64_000 });
    expect(page.article).toBe(true);
    expect(page.title).toContain(NEWS_PAGE_TITLE);
    for (const marker of NEWS_PAGE_SECTION_MARKERS) expect(page.markdown).toContain(marker);
    expect(page.markdown).toMatch(/^## survey of the old$/m);
    expect(page.markdown).toMatch(/\[\w+ \w+ coverage\]\(https:\/\/news\.example\.com\/\w+\/\d+\)/);
    expect(page.markdown).toMatch(/^-\s+\*\*\w+\*\*: /m);
    expect(page.markdown).toContain('```\ngauge 3: high water 19:58  5.1 m\ngauge 3: low water 13:42  0.4 m\n```');
    expect(page.markdown).toMatch(/^> \w/m);
    for (const furniture of NEWS_PAGE_FURNITURE) expect(page.markdown).not.toContain(furniture);
    expect(page.markdown).not.toMatch(/<\/?(p|div|article|script|svg|form)\b/);
  });

  it('converts the whole body without its navigation in body mode', () => {
    const page = htmlToMarkdown(
      '<html><head><title>Pumps</title><script>var x=1</script></head><body><nav><a href="/">Home</a></nav>' +
        '<h1>Pumps</h1><p>Pumps are primed by hand.</p><h2>Valves</h2><p>Valves stay shut.</p></body></html>',
      { mode: 'body' },
    );
    expect(page).toMatchObject({ title: 'Pumps', article: false });
    expect(page.markdown).toBe('# Pumps\n\nPumps are primed by hand.\n\n## Valves\n\nValves stay shut.');
  });
});
