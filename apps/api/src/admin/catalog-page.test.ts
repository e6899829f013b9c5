import type { CatalogView } from '@agentq/client';
import { describe, expect, it } from 'vitest';
import { cacheStateOf, catalogPage } from './catalog-page.js';

const definition = { id: 's1', enabled: true } as CatalogView['definition'];
const status = (state: 'connected' | 'stale' | 'error' | 'disabled') =>
  ({ state, lastAttemptAt: 1, toolCount: 0, failures: 0 }) as CatalogView['status'];

function view(overrides: Partial<CatalogView>): CatalogView {
  return { serverId: 's1', definition, state: 'connected', tools: [], status: status('connected'), ...overrides };
}

describe('cacheStateOf', () => {
  it('names fresh, stale, cold, failed and disabled servers', () => {
    expect(cacheStateOf(view({}))).toBe('fresh');
    expect(cacheStateOf(view({ state: 'stale', status: status('stale') }))).toBe('stale');
    expect(cacheStateOf(view({ state: 'never-warmed', status: null }))).toBe('cold');
    expect(cacheStateOf(view({ state: 'never-warmed', status: status('error') }))).toBe('failed');
    expect(cacheStateOf(view({ state: 'stale', status: status('error') }))).toBe('failed');
    expect(cacheStateOf(view({ definition: { ...definition, enabled: false } as CatalogView['definition'] }))).toBe(
      'disabled',
    );
  });
});

describe('catalogPage', () => {
  it('escapes server data and protects the refresh form with the CSRF token', () => {
    const html = catalogPage({
      csrf: 'token-1',
      rows: [
        {
          serverId: 's1',
          name: '<b>x</b>',
          enabled: true,
          state: 'failed',
          toolCount: 1,
          error: '<script>alert(1)</script>',
          tools: [{ name: 't<i>', wireName: 'mcp__s1__t', description: '"quoted"' }],
        },
      ],
    });
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<b>x</b>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('action="/admin/catalog/s1/refresh"');
    expect(html).toContain('name="_csrf" value="token-1"');
    expect(html).toContain('<code class="wire-name">mcp__s1__t</code>');
  });
});
