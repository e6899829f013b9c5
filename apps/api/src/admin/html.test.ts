import { describe, expect, it } from 'vitest';
import { escapeHtml, page } from './html.js';
import { LIVE_REFRESH_SCRIPT_PATH } from './live-refresh-script.js';

describe('admin html', () => {
  it('escapes markup in values', () => {
    expect(escapeHtml(`<script>alert("x")</script>&'`)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;',
    );
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
