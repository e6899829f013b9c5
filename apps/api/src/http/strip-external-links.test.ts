import { describe, expect, it } from 'vitest';
import { stripExternalLinks } from './strip-external-links.js';

describe('stripExternalLinks', () => {
  it('drops links to other hosts and keeps local ones', () => {
    const html = [
      '<link href="https://fonts.googleapis.com/css2?family=X" rel="stylesheet">',
      "<link rel='preconnect' href='//fonts.gstatic.com'>",
      '<link href="static/css/main.css" rel="stylesheet">',
      '<link rel="icon" href="/favicon.ico">',
    ].join('\n');
    const out = stripExternalLinks(html);
    expect(out).not.toContain('googleapis');
    expect(out).not.toContain('gstatic');
    expect(out).toContain('static/css/main.css');
    expect(out).toContain('/favicon.ico');
  });
});
