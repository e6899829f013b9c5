import { setImmediate as nextTurn } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { htmlToMarkdown } from '@agentq/kb/html-to-markdown';
import { buildNewsPage } from '../../../kb/src/test-support/news-page.js';
import { createHtmlConverter, type HtmlConverter } from './create-html-converter.js';

const page = buildNewsPage();

describe('createHtmlConverter', () => {
  const converters: HtmlConverter[] = [];
  const converter = (threads?: number) => {
    const created = createHtmlConverter(threads === undefined ? {} : { threads });
    converters.push(created);
    return created;
  };

  afterEach(async () => {
    await Promise.all(converters.splice(0).map((created) => created.close()));
  });

  // Loading a thread takes seconds on a busy machine: the tests wait for it, with a generous bound.
  it(
    'converts on a thread exactly as on the calling thread, which keeps turning meanwhile',
    { timeout: 60_000 },
    async () => {
      const pool = converter();
      await pool.start();
      let settled = false;
      const pending = pool.convert(page, { maxTextChars: 64_000 }).finally(() => {
        settled = true;
      });
      // The event loop goes round while the thread works; an inline conversion would have finished first.
      await nextTurn();
      expect(settled).toBe(false);
      expect(await pending).toEqual(htmlToMarkdown(page, { maxTextChars: 64_000 }));
    },
  );

  it('runs queued pages one after another on one thread, each with its own answer', { timeout: 60_000 }, async () => {
    const pool = converter(1);
    await pool.start();
    const pages = await Promise.all([
      pool.convert('<html><body><p>one</p></body></html>'),
      pool.convert('<html><body><p>two</p></body></html>'),
      pool.convert('<html><body><p>three</p></body></html>'),
    ]);
    expect(pages.map((converted) => converted.markdown)).toEqual(['one', 'two', 'three']);
  });

  it(
    'rejects an aborted conversion with the reason, stops its thread, and converts the next page',
    { timeout: 60_000 },
    async () => {
      const pool = converter(1);
      await pool.start();
      const controller = new AbortController();
      const reason = new Error('time is up');
      const pending = pool.convert(page, { signal: controller.signal });
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
      expect((await pool.convert('<p>after</p>')).markdown).toBe('after');
      await expect(pool.convert('<p>x</p>', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
    },
  );

  it('converts a page on the calling thread while no thread is ready yet', async () => {
    let settled = false;
    const pending = converter(1)
      .convert('<p>early</p>')
      .finally(() => {
        settled = true;
      });
    await nextTurn();
    expect(settled).toBe(true);
    expect((await pending).markdown).toBe('early');
  });

  it('converts on the calling thread with threads: 0', async () => {
    let settled = false;
    const pending = converter(0)
      .convert('<p>inline</p>')
      .finally(() => {
        settled = true;
      });
    await nextTurn();
    expect(settled).toBe(true);
    expect((await pending).markdown).toBe('inline');
  });

  it('refuses conversions once closed, and closes once', { timeout: 60_000 }, async () => {
    const pool = converter(1);
    await pool.start();
    expect((await pool.convert('<p>open</p>')).markdown).toBe('open');
    await pool.close();
    await pool.close();
    await expect(pool.convert('<p>late</p>')).rejects.toMatchObject({ code: 'WEB_FETCH_CONVERSION' });
  });
});
