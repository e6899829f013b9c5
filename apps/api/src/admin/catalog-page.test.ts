import { describe, expect, it } from 'vitest';
import { catalogPage, type CatalogServerRow } from './catalog-page.js';

const row = (overrides: Partial<CatalogServerRow>): CatalogServerRow => ({
  serverId: 's1',
  enabled: true,
  connectable: false,
  state: 'connected',
  toolCount: 0,
  tools: [],
  ...overrides,
});

describe('catalogPage', () => {
  it('escapes server data and protects the refresh form with the CSRF token', () => {
    const html = catalogPage({
      csrf: 'token-1',
      rows: [
        row({
          name: '<b>x</b>',
          state: 'error',
          toolCount: 1,
          error: '<script>alert(1)</script>',
          tools: [{ name: 't<i>', wireName: 'mcp__s1__t', description: '"quoted"' }],
        }),
      ],
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('action="/admin/catalog/s1/refresh"');
    expect(html).toContain('name="_csrf" value="token-1"');
    expect(html).toContain('<code class="wire-name">mcp__s1__t</code>');
  });

  it('summarises each server in one row and folds its tool table', () => {
    const tools = Array.from({ length: 3 }, (_, index) => ({ name: `t${index}`, wireName: `mcp__s__t${index}` }));
    const html = catalogPage({
      csrf: 'c',
      rows: [
        row({ serverId: 'a', toolCount: 3, tools }),
        row({ serverId: 'b', state: 'stale', toolCount: 3, tools, error: 'boom\nsecond line' }),
      ],
    });
    expect(html.match(/<tr class="server" data-server-id="[ab]">/g)).toHaveLength(2);
    // Folded: no details element is open, and every tool table sits inside one.
    expect(html.match(/<details class="step server-details"[^>]*>/g)).toHaveLength(2);
    expect(html).not.toMatch(/<details[^>]* open/);
    const summary = html.slice(html.indexOf('<table id="servers">'), html.indexOf('</table>'));
    expect(summary).not.toContain('wire-name');
    expect(summary).toContain('boom');
    expect(summary).not.toContain('second line');
  });
});
