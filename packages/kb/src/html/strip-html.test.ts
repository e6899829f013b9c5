import { describe, expect, it } from 'vitest';
import { stripHtml } from './strip-html.js';

describe('stripHtml', () => {
  it('drops scripts, styles, SVG, forms and comments with their content, keeping the text around them', () => {
    const { html, truncated } = stripHtml(
      '<html><head><title>T &amp; U</title><style>p{color:red}</style><script>var tracked = "<p>no</p>";</script></head>' +
        '<body><!-- build 42 --><p>One <svg><path d="M0"/><text>icon</text></svg>two</p>' +
        '<form><input name="q"><button>Go</button></form><noscript>enable js</noscript><p>three</p></body></html>',
    );
    expect(truncated).toBe(false);
    expect(html).toBe(
      '<!doctype html><html><head><title>T &amp; U</title></head><body><p>One two</p><p>three</p></body></html>',
    );
  });

  it('keeps the attributes reading needs and drops the others, inline data images and huge values', () => {
    const { html } = stripHtml(
      `<div class="post" id="main" data-state='{"a":"b"}' onclick="x()"><a href="/x?a=1&amp;b=2" title='say "hi"'>x</a>` +
        `<img src="data:image/png;base64,AAAA" alt="chart"><img src="/c.png"><p style="${'a'.repeat(3000)}">y</p></div>`,
    );
    expect(html).toBe(
      '<!doctype html><html><body><div class="post" id="main"><a href="/x?a=1&amp;b=2" title="say &quot;hi&quot;">x</a>' +
        '<img alt="chart"><img src="/c.png"><p>y</p></div></body></html>',
    );
  });

  it('ends the document after maxTextChars of text, closing what is open', () => {
    const { html, truncated } = stripHtml(
      '<body><main><p>aaaa</p><ul><li>bbbb</li><li>cccc</li></ul><p>dddd</p></main></body>',
      {
        maxTextChars: 6,
      },
    );
    expect(truncated).toBe(true);
    expect(html).toBe('<!doctype html><html><body><main><p>aaaa</p><ul><li>bbbb</li></ul></main></body></html>');
  });

  it('closes elements the page left open', () => {
    expect(stripHtml('<div><p>one<p>two<ul><li>a<li>b</div>').html).toBe(
      '<!doctype html><html><body><div><p>one</p><p>two</p><ul><li>a</li><li>b</li></ul></div></body></html>',
    );
  });

  it('gives a fragment or a bare text the <html> and <body> a DOM needs', () => {
    expect(stripHtml('<p>first</p>').html).toBe('<!doctype html><html><body><p>first</p></body></html>');
    expect(stripHtml('just text').html).toBe('<!doctype html><html><body>just text</body></html>');
    expect(stripHtml('<title>T</title><div>x</div>').html).toBe(
      '<!doctype html><html><title>T</title><body><div>x</div></body></html>',
    );
    expect(stripHtml('<html><head><title>T</title></head><div>x</div><body><p>y</p></body></html>').html).toBe(
      '<!doctype html><html><head><title>T</title></head><body><div>x</div><p>y</p></body></html>',
    );
  });
});
