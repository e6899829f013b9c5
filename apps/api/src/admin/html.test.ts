import { describe, expect, it } from 'vitest';
import { escapeHtml, escapeHtmlExact, page } from './html.js';
import { LIVE_REFRESH_SCRIPT_PATH } from './live-refresh-script.js';

describe('admin html', () => {
  it('escapes markup in values', () => {
    expect(escapeHtml(`<script>alert("x")</script>&'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;',
    );
  });

  it('shows bidi, zero-width and control characters as escapes, except in values a form sends back', () => {
    expect(escapeHtml('notes/\u202Egnp.exe a\u200bb \u001b[2J\u0085 <i>\n')).toBe(
      'notes/\\u202egnp.exe a\\u200bb \\u001b[2J\\u0085 &lt;i&gt;\n',
    );
    expect(escapeHtmlExact('prod\u200b<"x">')).toBe('prod\u200b&lt;&quot;x&quot;&gt;');
  });

  it('puts the CSRF token in the logout form only when logged in', () => {
    expect(page({ title: 't', body: '', csrf: 'abc' })).toContain('name="_csrf" value="abc"');
    expect(page({ title: 't', body: '' })).not.toContain('_csrf');
  });

  it('refreshes through the same-origin script, with a meta refresh only for pages without scripts', () => {
    const html = page({ title: 't', body: '', refreshSeconds: 3 });
    expect(html).toContain('<body data-refresh-seconds="3">');
    expect(html).toContain(`<script src="${LIVE_REFRESH_SCRIPT_PATH}" defer></script>`);
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="3"></noscript>');
    expect(html).not.toMatch(/<script>/);
    expect(page({ title: 't', body: '' })).not.toContain('refresh');
  });
});
