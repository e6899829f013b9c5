import { describe, expect, it } from 'vitest';
import { escapeHtml, page } from './html.js';

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
});
