import { describe, expect, it } from 'vitest';
import { safeSourceUrl, shownDocumentSource } from './read-source.js';

describe('safeSourceUrl', () => {
  it('keeps scheme, host, port and path, and drops credentials, query and fragment', () => {
    expect(safeSourceUrl('https://alice:s3cret@docs.example.com:8443/guide/page.md?token=abc&x=1#part')).toBe(
      'https://docs.example.com:8443/guide/page.md',
    );
    expect(safeSourceUrl('https://docs.example.com/page.md')).toBe('https://docs.example.com/page.md');
    expect(safeSourceUrl('not a url')).toBe('(invalid URL)');
  });
});

describe('shownDocumentSource', () => {
  it('shows a URL recorded with credentials in its safe form and leaves file paths alone', () => {
    expect(shownDocumentSource('https://bob:pw@wiki.example.com/a?sig=1')).toBe('https://wiki.example.com/a');
    expect(shownDocumentSource('/srv/docs/guide.md')).toBe('/srv/docs/guide.md');
    expect(shownDocumentSource('docs/with:colon.md')).toBe('docs/with:colon.md');
  });
});
