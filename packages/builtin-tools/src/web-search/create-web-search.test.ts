import { loadConfig, SECRET_MASK } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentqFailure } from '../test-support/agentq-failure.js';
import { send, startLoopbackServer, type LoopbackServer } from '../test-support/loopback-server.js';
import { createWebSearch } from './create-web-search.js';

const braveKey = 'brave-key-7f3a9c1d2e';
const tavilyKey = 'tvly-secret-55aa77bb';

/** A provider endpoint that answers per mode: results, an error that echoes the key, or silence. */
let mode: 'ok' | 'echo-error' | 'hang' | 'garbage' = 'ok';

describe('createWebSearch', () => {
  let searxng: LoopbackServer;
  let brave: LoopbackServer;
  let tavily: LoopbackServer;

  beforeAll(async () => {
    searxng = await startLoopbackServer((request, response) => {
      if (mode === 'hang') return;
      if (mode === 'garbage') return send(response, 200, 'text/html', '<html>not json</html>');
      if (mode === 'echo-error') return send(response, 502, 'text/plain', 'upstream engines failed');
      const query = new URL(request.path, 'http://x').searchParams.get('q') ?? '';
      send(
        response,
        200,
        'application/json',
        JSON.stringify({
          query,
          number_of_results: 3,
          results: [1, 2, 3].map((index) => ({
            url: `https://example.org/${index}`,
            title: `Result ${index} for ${query}`,
            content: `Snippet <span class="highlight">${index}</span>   with   spaces`,
            engine: 'duckduckgo',
            engines: ['duckduckgo'],
            positions: [index],
            score: 1 / index,
          })),
          answers: [],
          suggestions: [],
          unresponsive_engines: [],
        }),
      );
    });
    brave = await startLoopbackServer((request, response) => {
      if (mode === 'hang') return;
      if (request.headers['x-subscription-token'] !== braveKey || mode === 'echo-error') {
        // Providers echo what they got more often than they should.
        return send(
          response,
          401,
          'application/json',
          JSON.stringify({ error: `invalid token ${String(request.headers['x-subscription-token'])}` }),
        );
      }
      const url = new URL(request.path, 'http://x');
      const count = Number(url.searchParams.get('count'));
      send(
        response,
        200,
        'application/json',
        JSON.stringify({
          type: 'search',
          web: {
            type: 'search',
            results: Array.from({ length: count }, (_, index) => ({
              title: `Brave ${index}`,
              url: `https://brave.example/${index}`,
              description: `About <strong>${url.searchParams.get('q')}</strong>`,
            })),
          },
        }),
      );
    });
    tavily = await startLoopbackServer((request, response) => {
      if (mode === 'hang') return;
      if (request.headers.authorization !== `Bearer ${tavilyKey}` || mode === 'echo-error') {
        return send(
          response,
          403,
          'application/json',
          JSON.stringify({ detail: { error: `bad key: ${request.headers.authorization}` } }),
        );
      }
      const body = JSON.parse(request.body) as { query: string; max_results: number };
      send(
        response,
        200,
        'application/json',
        JSON.stringify({
          query: body.query,
          results: Array.from({ length: body.max_results }, (_, index) => ({
            title: `Tavily ${index}`,
            url: `https://tavily.example/${index}`,
            content: `${body.query} content ${index}`,
            score: 0.9,
          })),
          response_time: 0.5,
        }),
      );
    });
  });

  afterAll(async () => {
    await Promise.all([searxng?.close(), brave?.close(), tavily?.close()]);
  });

  // Generous by default, so a busy machine never turns a good answer into a timeout.
  const setup = (env: Record<string, string> = {}, timeoutMs = 30_000) => {
    const processEnv = {
      AGENTQ_SECRET_BRAVE_API_KEY: braveKey,
      AGENTQ_SECRET_TAVILY_API_KEY: tavilyKey,
      ...env,
    };
    const config = loadConfig({
      AGENTQ_SEARXNG_URL: `${searxng.origin}/searx`,
      AGENTQ_BRAVE_SEARCH_URL: `${brave.origin}/res/v1/web/search`,
      AGENTQ_TAVILY_URL: `${tavily.origin}/search`,
      AGENTQ_WEB_SEARCH_TIMEOUT_MS: String(timeoutMs),
      ...processEnv,
    });
    return createWebSearch({ config, env: processEnv });
  };

  it('asks SearXNG for JSON and returns title, url and snippet, up to the limit', async () => {
    mode = 'ok';
    const search = setup();
    expect(search.defaultProvider()).toBe('searxng');
    const found = await search.search({ query: 'tide tables', limit: 2 });
    expect(found).toEqual({
      provider: 'searxng',
      results: [
        { title: 'Result 1 for tide tables', url: 'https://example.org/1', snippet: 'Snippet 1 with spaces' },
        { title: 'Result 2 for tide tables', url: 'https://example.org/2', snippet: 'Snippet 2 with spaces' },
      ],
    });
    const request = searxng.requests.at(-1);
    const url = new URL(request?.path ?? '', 'http://x');
    expect(url.pathname).toBe('/searx/search');
    expect(url.searchParams.get('format')).toBe('json');
    expect(url.searchParams.get('q')).toBe('tide tables');
  });

  it('sends the Brave key as X-Subscription-Token and the limit as count', async () => {
    mode = 'ok';
    const found = await setup().search({ query: 'waders', limit: 3, provider: 'brave' });
    expect(found.provider).toBe('brave');
    expect(found.results).toEqual(
      [0, 1, 2].map((index) => ({
        title: `Brave ${index}`,
        url: `https://brave.example/${index}`,
        snippet: 'About waders',
      })),
    );
    expect(new URL(brave.requests.at(-1)?.path ?? '', 'http://x').searchParams.get('count')).toBe('3');
  });

  it('posts to Tavily with the key as a bearer token', async () => {
    mode = 'ok';
    const found = await setup().search({ query: 'estuary', limit: 2, provider: 'tavily' });
    expect(found.results).toEqual([
      { title: 'Tavily 0', url: 'https://tavily.example/0', snippet: 'estuary content 0' },
      { title: 'Tavily 1', url: 'https://tavily.example/1', snippet: 'estuary content 1' },
    ]);
    const request = tavily.requests.at(-1);
    expect(request?.method).toBe('POST');
    expect(JSON.parse(request?.body ?? '{}')).toMatchObject({ query: 'estuary', max_results: 2 });
  });

  it('turns a provider error into a tool error naming the provider, with its key masked', async () => {
    mode = 'echo-error';
    const search = setup();
    for (const provider of ['brave', 'tavily'] as const) {
      const error = await agentqFailure(search.search({ query: 'x', limit: 1, provider }));
      expect(error.code).toBe('WEB_SEARCH_FAILED');
      expect(error.message).toContain(`web_search provider ${provider}`);
      expect(error.message).toMatch(/HTTP 40[13]/);
      expect(error.message).not.toContain(braveKey);
      expect(error.message).not.toContain(tavilyKey);
      expect(error.message).toContain(SECRET_MASK);
    }
    const searx = await agentqFailure(search.search({ query: 'x', limit: 1, provider: 'searxng' }));
    expect(searx).toMatchObject({ code: 'WEB_SEARCH_FAILED' });
    expect(searx.message).toContain('upstream engines failed');
  });

  it('refuses an answer that is not the provider’s JSON', async () => {
    mode = 'garbage';
    const error = await agentqFailure(setup().search({ query: 'x', limit: 1, provider: 'searxng' }));
    expect(error.code).toBe('WEB_SEARCH_FAILED');
    expect(error.message).toContain('searxng');
  });

  it('times out a provider that does not answer, naming it', async () => {
    mode = 'hang';
    const search = setup({}, 400);
    for (const provider of ['searxng', 'brave', 'tavily'] as const) {
      const error = await agentqFailure(search.search({ query: 'x', limit: 1, provider }));
      expect(error.code).toBe('WEB_SEARCH_TIMEOUT');
      expect(error.message).toContain(`web_search provider ${provider}`);
      expect(error.message).toContain('400 ms');
    }
  });

  it('picks Brave, then Tavily, by their keys when SearXNG is not set, and says when none is', async () => {
    mode = 'ok';
    const config = (env: Record<string, string>) =>
      loadConfig({ AGENTQ_BRAVE_SEARCH_URL: `${brave.origin}/`, AGENTQ_TAVILY_URL: `${tavily.origin}/`, ...env });
    expect(
      createWebSearch({ config: config({}), env: { AGENTQ_SECRET_BRAVE_API_KEY: braveKey } }).defaultProvider(),
    ).toBe('brave');
    expect(
      createWebSearch({ config: config({}), env: { AGENTQ_SECRET_TAVILY_API_KEY: tavilyKey } }).defaultProvider(),
    ).toBe('tavily');
    const none = createWebSearch({ config: config({}), env: {} });
    expect(none.defaultProvider()).toBeUndefined();
    expect((await agentqFailure(none.search({ query: 'x', limit: 1 }))).code).toBe('WEB_SEARCH_UNAVAILABLE');
    const missingKey = await agentqFailure(none.search({ query: 'x', limit: 1, provider: 'brave' }));
    expect(missingKey.code).toBe('WEB_SEARCH_UNAVAILABLE');
    expect(missingKey.message).toContain('AGENTQ_SECRET_BRAVE_API_KEY');
  });

  it('refuses to send a key bound to other hosts', async () => {
    mode = 'ok';
    const error = await agentqFailure(
      setup({ AGENTQ_SECRET_HOSTS: 'BRAVE_API_KEY=api.search.brave.com' }).search({
        query: 'x',
        limit: 1,
        provider: 'brave',
      }),
    );
    expect(error.code).toBe('WEB_SEARCH_UNAVAILABLE');
    expect(error.message).toContain('AGENTQ_SECRET_HOSTS');
    expect(error.message).not.toContain(braveKey);
  });
});
