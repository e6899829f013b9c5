import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentqFailure } from '../test-support/agentq-failure.js';
import { send, startLoopbackServer, type LoopbackServer } from '../test-support/loopback-server.js';
import { createWebFetcher, type WebFetcherOptions } from './create-web-fetcher.js';
import { renderWebPage } from './create-web-fetch-entry.js';

const article = await readFile(new URL('../../../kb/src/test-support/article.html', import.meta.url), 'utf8');

describe('createWebFetcher', () => {
  let server: LoopbackServer;
  // The test server is on loopback: only its literal address is allowed, as an operator would.
  const allowLoopback = (options: WebFetcherOptions = {}) =>
    createWebFetcher({ allowHosts: ['127.0.0.1'], ...options });

  beforeAll(async () => {
    server = await startLoopbackServer(async (request, response) => {
      switch (request.path) {
        case '/article':
          return send(response, 200, 'text/html; charset=utf-8', article);
        case '/plain':
          return send(response, 200, 'text/plain', 'just words\n  kept as they are');
        case '/json':
          return send(response, 200, 'application/json', '{"a":[1,2,3]}');
        case '/image':
          return send(response, 200, 'image/png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
        case '/big-declared':
          return send(response, 200, 'text/plain', 'x'.repeat(64 * 1024));
        case '/big-chunked': {
          // No content-length: the cap must hold while reading.
          response.writeHead(200, { 'content-type': 'text/plain' });
          for (let index = 0; index < 64; index += 1) response.write('y'.repeat(1024));
          response.end();
          return;
        }
        case '/stall':
          // Headers, a first chunk, then nothing: only the time cap ends this.
          response.writeHead(200, { 'content-type': 'text/html' });
          response.write('<html><body><p>never finished');
          return;
        case '/hop-1':
          response.writeHead(302, { location: '/hop-2' });
          return response.end();
        case '/hop-2':
          response.writeHead(301, { location: 'http://169.254.169.254/latest/meta-data/' });
          return response.end();
        case '/hop-named':
          response.writeHead(307, { location: 'http://intranet.test/secrets' });
          return response.end();
        case '/missing':
          return send(response, 404, 'text/html', '<p>gone</p>');
        default:
          return send(response, 200, 'text/plain', `rebound to ${request.path}`);
      }
    });
  });

  afterAll(async () => {
    await server?.close();
  });

  it('turns a real HTML article into readable Markdown, without the page furniture', async () => {
    const page = await allowLoopback().fetchPage({ url: `${server.origin}/article` });
    expect(page.contentType).toBe('text/html');
    expect(page.title).toContain('Reading the tide tables');
    expect(page.cut).toBe(false);
    expect(page.content).toMatch(/^## What a line of the table says$/m);
    expect(page.content).toContain('[station list](https://tides.example.org/stations)');
    expect(page.content).toContain('**High water**');
    expect(page.content).toContain('The rule of twelfths');
    expect(page.content).toContain('low water 13:42  0.4 m');
    // Navigation, ads, scripts, styles and the footer form are not part of the article.
    expect(page.content).not.toContain('Subscribe');
    expect(page.content).not.toContain('waterproof boots');
    expect(page.content).not.toContain('analytics');
    expect(page.content).not.toContain('font-family');
    expect(page.content).not.toMatch(/<\/?(p|div|article|script)\b/);
  });

  it('passes plain text and JSON through as they are', async () => {
    const fetcher = allowLoopback();
    const plain = await fetcher.fetchPage({ url: `${server.origin}/plain` });
    expect(plain).toMatchObject({ contentType: 'text/plain', content: 'just words\n  kept as they are', cut: false });
    const json = await fetcher.fetchPage({ url: `${server.origin}/json` });
    expect(json).toMatchObject({ contentType: 'application/json', content: '{"a":[1,2,3]}' });
  });

  it('refuses a content type it does not read, naming it', async () => {
    const error = await agentqFailure(allowLoopback().fetchPage({ url: `${server.origin}/image` }));
    expect(error.code).toBe('WEB_FETCH_CONTENT_TYPE');
    expect(error.message).toContain('image/png');
  });

  it('refuses a body over the byte cap, declared or not', async () => {
    const fetcher = allowLoopback({ maxBytes: 16 * 1024 });
    for (const path of ['/big-declared', '/big-chunked']) {
      const error = await agentqFailure(fetcher.fetchPage({ url: `${server.origin}${path}` }));
      expect(error.code).toBe('WEB_FETCH_TOO_LARGE');
      expect(error.message).toContain(String(16 * 1024));
    }
    // The same pages fit under a larger cap.
    const page = await allowLoopback({ maxBytes: 128 * 1024, maxTokens: 100_000 }).fetchPage({
      url: `${server.origin}/big-chunked`,
    });
    expect(page.content).toBe('y'.repeat(64 * 1024));
  });

  it('gives up at the time cap on a page that stops sending', async () => {
    const error = await agentqFailure(allowLoopback({ timeoutMs: 300 }).fetchPage({ url: `${server.origin}/stall` }));
    expect(error.code).toBe('WEB_FETCH_TIMEOUT');
    expect(error.message).toContain('300 ms');
  });

  it('refuses a redirect chain that ends at a private address, without connecting there', async () => {
    const before = server.requests.length;
    const error = await agentqFailure(allowLoopback().fetchPage({ url: `${server.origin}/hop-1` }));
    expect(error.code).toBe('PRIVATE_ADDRESS');
    expect(error.message).toContain('169.254.169.254');
    // Only this test's paths: on a busy machine the stalled request of the time-cap test may be logged late.
    const hops = server.requests.slice(before).filter((request) => request.path.startsWith('/hop-'));
    expect(hops.map((request) => request.path)).toEqual(['/hop-1', '/hop-2']);
  });

  it('checks every hop with the same resolver: a named host that resolves privately is refused', async () => {
    const asked: string[] = [];
    const fetcher = allowLoopback({
      lookup: async (hostname) => {
        asked.push(hostname);
        return [{ address: '10.1.2.3', family: 4 }];
      },
    });
    const error = await agentqFailure(fetcher.fetchPage({ url: `${server.origin}/hop-named` }));
    expect(error.code).toBe('PRIVATE_ADDRESS');
    expect(asked).toContain('intranet.test');
  });

  it('refuses a DNS rebinding: a public answer first, then loopback, never reaches loopback', async () => {
    const before = server.requests.length;
    const answers = [[{ address: '93.184.215.14', family: 4 }], [{ address: '127.0.0.1', family: 4 }]];
    let lookups = 0;
    const fetcher = createWebFetcher({
      // Loopback itself is allowed by address, as above; the name is not, so its answers are checked.
      allowHosts: ['127.0.0.1'],
      lookup: async () => answers[Math.min(lookups++, answers.length - 1)] ?? [],
    });
    const error = await agentqFailure(fetcher.fetchPage({ url: `http://rebind.test:${server.port}/rebound` }));
    expect(error.code).toBe('PRIVATE_ADDRESS');
    expect(error.message).toContain('127.0.0.1');
    expect(lookups).toBe(2);
    expect(server.requests.slice(before)).toEqual([]);
  });

  it('refuses loopback by default', async () => {
    const error = await agentqFailure(createWebFetcher().fetchPage({ url: `${server.origin}/plain` }));
    expect(error.code).toBe('PRIVATE_ADDRESS');
  });

  it('refuses URLs that are not http(s)', async () => {
    const error = await agentqFailure(allowLoopback().fetchPage({ url: 'file:///etc/passwd' }));
    expect(error.code).toBe('INVALID_URL');
  });

  it('reports an HTTP error status as a failure naming it', async () => {
    const error = await agentqFailure(allowLoopback().fetchPage({ url: `${server.origin}/missing` }));
    expect(error.code).toBe('WEB_FETCH_FAILED');
    expect(error.message).toContain('404');
  });

  it('cuts the content to the token budget, and the rendered page says so', async () => {
    const page = await allowLoopback({ maxTokens: 40 }).fetchPage({ url: `${server.origin}/article` });
    expect(page.cut).toBe(true);
    const whole = await allowLoopback().fetchPage({ url: `${server.origin}/article` });
    expect(whole.content.startsWith(page.content)).toBe(true);
    expect(page.content.length).toBeLessThan(whole.content.length);
    const rendered = renderWebPage(page, 40);
    expect(rendered).toContain(`URL: ${server.origin}/article`);
    expect(rendered).toMatch(/\[Cut: only the first 40 tokens/);
    expect(renderWebPage(whole, 8000)).not.toContain('[Cut');
  });
});
