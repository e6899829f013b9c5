import { AgentqError, NonRetryableError, type FetchTargetLookup, type GuardedFetch } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { createInputDownload } from './create-input-download.js';

function fakeFetch(answers: Record<string, () => Response>) {
  const requested: string[] = [];
  const fetch: GuardedFetch = async (input) => {
    const url = String(input);
    requested.push(url);
    const answer = answers[url];
    if (!answer) throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    return answer();
  };
  return { fetch, requested };
}

const png = (body = 'png-bytes') => new Response(body, { headers: { 'content-type': 'image/png; charset=binary' } });

describe('createInputDownload', () => {
  it('downloads each URL once per attempt, and leaves the ones the model reads itself', async () => {
    const { fetch, requested } = fakeFetch({ 'https://example.com/a.png': () => png() });
    const download = createInputDownload({ config: {}, signal: new AbortController().signal, fetch });
    const url = new URL('https://example.com/a.png');
    const step = async () =>
      await download([
        { url, isUrlSupportedByModel: false },
        { url: new URL('https://93.184.216.34/read-by-model.png'), isUrlSupportedByModel: true },
      ]);
    const [first, second] = [await step(), await step()];
    expect(requested).toEqual(['https://example.com/a.png']);
    expect(first[1]).toBeNull();
    expect(first[0]?.mediaType).toBe('image/png');
    expect(new TextDecoder().decode(first[0]?.data)).toBe('png-bytes');
    expect(second[0]).toEqual(first[0]);
  });

  it('counts every download of the attempt against one byte cap', async () => {
    const { fetch } = fakeFetch({
      'https://example.com/a.png': () => png('12345'),
      'https://example.com/b.png': () => png('67890'),
    });
    const download = createInputDownload({
      config: { inputDownloadMaxBytes: 8 },
      signal: new AbortController().signal,
      fetch,
    });
    await download([{ url: new URL('https://example.com/a.png'), isUrlSupportedByModel: false }]);
    const error = await Promise.resolve(
      download([{ url: new URL('https://example.com/b.png'), isUrlSupportedByModel: false }]),
    ).catch((caught: unknown) => caught);
    expect(NonRetryableError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_FAILED' });
    expect((error as Error).message).toContain('AGENTQ_INPUT_DOWNLOAD_MAX_BYTES');
  });

  async function failureOf(
    download: ReturnType<typeof createInputDownload>,
    url: string,
    isUrlSupportedByModel = false,
  ): Promise<unknown> {
    return await Promise.resolve(download([{ url: new URL(url), isUrlSupportedByModel }])).catch(
      (caught: unknown) => caught,
    );
  }

  function refused(code: string): never {
    const cause: NodeJS.ErrnoException = new Error('connect ECONNREFUSED 203.0.113.9:443');
    cause.code = code;
    throw new TypeError('fetch failed', { cause });
  }

  it('fails for good, without the query in the message, where the next attempt would fail too', async () => {
    const { fetch } = fakeFetch({
      'https://example.com/gone.png?token=secret': () => new Response('', { status: 404 }),
      'https://example.com/denied.png?token=secret': () => new Response('', { status: 403 }),
      'https://example.com/loop.png?token=secret': () => {
        throw new TypeError('fetch failed', { cause: new Error('more than 20 redirects') });
      },
    });
    const download = createInputDownload({ config: {}, signal: new AbortController().signal, fetch });
    for (const [url, reason] of [
      ['https://example.com/gone.png?token=secret', 'answered HTTP 404'],
      ['https://example.com/denied.png?token=secret', 'answered HTTP 403'],
      ['https://example.com/loop.png?token=secret', 'more than 20 redirects'],
    ] as const) {
      const error = await failureOf(download, url);
      expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_FAILED' });
      expect(NonRetryableError.isInstance(error)).toBe(true);
      expect((error as Error).message).toContain(reason);
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('fails for this attempt only where the host may answer later: 408, 429, 5xx, a refused connection', async () => {
    const { fetch } = fakeFetch({
      'https://example.com/busy.png?token=secret': () => new Response('', { status: 503 }),
      'https://example.com/limited.png?token=secret': () => new Response('', { status: 429 }),
      'https://example.com/slow.png?token=secret': () => new Response('', { status: 408 }),
      'https://example.com/down.png?token=secret': () => refused('ECONNREFUSED'),
    });
    const download = createInputDownload({ config: {}, signal: new AbortController().signal, fetch });
    for (const [url, reason] of [
      ['https://example.com/busy.png?token=secret', 'answered HTTP 503'],
      ['https://example.com/limited.png?token=secret', 'answered HTTP 429'],
      ['https://example.com/slow.png?token=secret', 'answered HTTP 408'],
      ['https://example.com/down.png?token=secret', 'ECONNREFUSED'],
    ] as const) {
      const error = await failureOf(download, url);
      expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_UNAVAILABLE' });
      expect(AgentqError.isInstance(error)).toBe(true);
      expect(NonRetryableError.isInstance(error)).toBe(false);
      expect((error as Error).message).toContain(reason);
      expect((error as Error).message).not.toContain('secret');
    }
  });

  it('gives up a download at AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS, for this attempt only', async () => {
    const fetch: GuardedFetch = (_input, init) =>
      new Promise((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason as Error), { once: true });
      });
    const download = createInputDownload({
      config: { inputDownloadTimeoutMs: 50 },
      signal: new AbortController().signal,
      fetch,
    });
    const error = await failureOf(download, 'https://example.com/never.png');
    expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_UNAVAILABLE' });
    expect(NonRetryableError.isInstance(error)).toBe(false);
    expect((error as Error).message).toContain('AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS');
  });

  describe('a URL the model reads itself', () => {
    const noFetch: GuardedFetch = () => Promise.reject(new Error('a URL the model reads must not be fetched'));
    const readByModel = (url: string) => [{ url: new URL(url), isUrlSupportedByModel: true }];
    const refusalOf = (download: ReturnType<typeof createInputDownload>, url: string) => failureOf(download, url, true);

    it('fails for good, naming host and path but not the query, when it is on a private or loopback address', async () => {
      const download = createInputDownload({ config: {}, signal: new AbortController().signal, fetch: noFetch });
      for (const [url, host] of [
        ['http://10.0.0.5/x.png?token=secret', 'http://10.0.0.5/x.png'],
        ['http://[::1]/x.png?token=secret', 'http://[::1]/x.png'],
        ['http://localhost:8000/x.png?token=secret', 'http://localhost:8000/x.png'],
      ] as const) {
        const error = await refusalOf(download, url);
        expect(NonRetryableError.isInstance(error)).toBe(true);
        expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_FAILED' });
        expect((error as Error).message).toContain(host);
        expect((error as Error).message).toContain('private, loopback or reserved address');
        expect((error as Error).message).not.toContain('secret');
      }
    });

    it('checks every address the name resolves to, once per attempt, and passes a public one on untouched', async () => {
      const looked: string[] = [];
      const lookup: FetchTargetLookup = async (hostname) => {
        looked.push(hostname);
        return hostname === 'images.example'
          ? [{ address: '93.184.216.34', family: 4 }]
          : [
              { address: '93.184.216.34', family: 4 },
              { address: '192.168.1.10', family: 4 },
            ];
      };
      const download = createInputDownload({
        config: {},
        signal: new AbortController().signal,
        fetch: noFetch,
        lookup,
      });
      expect(await download(readByModel('https://images.example/a.png'))).toEqual([null]);
      expect(await download(readByModel('https://images.example/a.png'))).toEqual([null]);
      expect(await download(readByModel('http://93.184.216.34/b.png'))).toEqual([null]);
      expect(looked).toEqual(['images.example']);
      const error = await refusalOf(download, 'https://split.example/c.png');
      expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_FAILED' });
      expect((error as Error).message).toContain('192.168.1.10');
      await refusalOf(download, 'https://split.example/c.png');
      expect(looked).toEqual(['images.example', 'split.example']);
    });

    it('lets a private address through under AGENTQ_ALLOW_PRIVATE_FETCH or AGENTQ_FETCH_ALLOW_HOSTS', async () => {
      const signal = new AbortController().signal;
      const open = createInputDownload({ config: { allowPrivateFetch: true }, signal, fetch: noFetch });
      expect(await open(readByModel('http://10.0.0.5/x.png'))).toEqual([null]);
      const listed = createInputDownload({ config: { fetchAllowHosts: ['10.0.0.5'] }, signal, fetch: noFetch });
      expect(await listed(readByModel('http://10.0.0.5/x.png'))).toEqual([null]);
      const error = await refusalOf(listed, 'http://10.0.0.6/x.png');
      expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_FAILED' });
    });

    it('fails for this attempt only when the name cannot be resolved for now', async () => {
      const lookup: FetchTargetLookup = () => {
        const error: NodeJS.ErrnoException = new Error('getaddrinfo EAI_AGAIN images.example');
        error.code = 'EAI_AGAIN';
        return Promise.reject(error);
      };
      const download = createInputDownload({
        config: {},
        signal: new AbortController().signal,
        fetch: noFetch,
        lookup,
      });
      const error = await refusalOf(download, 'https://images.example/a.png?token=secret');
      expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_UNAVAILABLE' });
      expect(NonRetryableError.isInstance(error)).toBe(false);
      expect((error as Error).message).toContain('https://images.example/a.png');
      expect((error as Error).message).not.toContain('secret');
    });

    it('looks up each host once, one lookup at a time, however many URLs the messages name', async () => {
      let inFlight = 0;
      let most = 0;
      const looked: string[] = [];
      const lookup: FetchTargetLookup = async (hostname) => {
        looked.push(hostname);
        inFlight += 1;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        inFlight -= 1;
        return [{ address: '93.184.216.34', family: 4 }];
      };
      const download = createInputDownload({
        config: {},
        signal: new AbortController().signal,
        fetch: noFetch,
        lookup,
      });
      const urls = Array.from({ length: 300 }, (_, index) => ({
        url: new URL(`https://host-${index % 3}.example/${index}.png`),
        isUrlSupportedByModel: true,
      }));
      expect(await download(urls)).toEqual(urls.map(() => null));
      expect(looked.sort()).toEqual(['host-0.example', 'host-1.example', 'host-2.example']);
      expect(most).toBe(1);
    });

    it('stops waiting for a lookup that never answers at AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS, for this attempt only', async () => {
      const lookup: FetchTargetLookup = () => new Promise(() => undefined);
      const download = createInputDownload({
        config: { inputDownloadTimeoutMs: 50 },
        signal: new AbortController().signal,
        fetch: noFetch,
        lookup,
      });
      const error = await refusalOf(download, 'https://silent.example/a.png');
      expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_UNAVAILABLE' });
      expect((error as Error).message).toContain('AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS');
    });
  });

  it('fails for good on a server error that says the request will never be served (501, 505)', async () => {
    const { fetch } = fakeFetch({
      'https://example.com/a.png': () => new Response('', { status: 501 }),
      'https://example.com/b.png': () => new Response('', { status: 505 }),
    });
    const download = createInputDownload({ config: {}, signal: new AbortController().signal, fetch });
    for (const url of ['https://example.com/a.png', 'https://example.com/b.png']) {
      expect(await failureOf(download, url)).toMatchObject({ code: 'INPUT_DOWNLOAD_FAILED' });
    }
  });

  it('names why, when every address of a host refused the connection', async () => {
    const refusedAll = (): never => {
      const one: NodeJS.ErrnoException = new Error('connect ECONNREFUSED 203.0.113.9:443');
      one.code = 'ECONNREFUSED';
      const all: NodeJS.ErrnoException = new AggregateError([one, one], '');
      all.code = 'ECONNREFUSED';
      throw new TypeError('fetch failed', { cause: all });
    };
    const { fetch } = fakeFetch({ 'https://multi.example/a.png': refusedAll });
    const download = createInputDownload({ config: {}, signal: new AbortController().signal, fetch });
    const error = await failureOf(download, 'https://multi.example/a.png');
    expect(error).toMatchObject({ code: 'INPUT_DOWNLOAD_UNAVAILABLE' });
    expect((error as Error).message).toContain('ECONNREFUSED 203.0.113.9:443');
  });
});
