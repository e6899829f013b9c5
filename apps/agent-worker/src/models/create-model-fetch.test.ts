import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, generateText } from 'ai';
import { AgentqError, isRetryable } from '@agentq/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createModelFetch, ModelRedirectRefused } from './create-model-fetch.js';

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void;

const chatAnswer = {
  id: 'chat-1',
  object: 'chat.completion',
  created: 0,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

describe('createModelFetch', () => {
  const handlers = new Map<string, Handler>();
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => handlers.get(request.url ?? '')?.(request, body, response));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the method, headers and body, and answers with the status, headers and body', async () => {
    handlers.set('/echo', (request, body, response) => {
      response.writeHead(201, 'Made', { 'content-type': 'application/json', 'x-seen': request.headers['x-key'] ?? '' });
      response.end(JSON.stringify({ method: request.method, body, length: request.headers['content-length'] }));
    });
    const answer = await createModelFetch()(`${base}/echo`, {
      method: 'POST',
      headers: { 'X-Key': 'k1', 'x-unset': undefined } as unknown as Record<string, string>,
      body: '{"é":1}',
    });
    expect(answer.status).toBe(201);
    expect(answer.statusText).toBe('Made');
    expect(answer.ok).toBe(true);
    expect(answer.headers.get('x-seen')).toBe('k1');
    expect(await answer.json()).toEqual({ method: 'POST', body: '{"é":1}', length: '8' });
  });

  it('passes an event stream on as it arrives', async () => {
    let finish: (() => void) | undefined;
    handlers.set('/stream', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: one\n\n');
      finish = () => response.end('data: two\n\n');
    });
    const answer = await createModelFetch()(`${base}/stream`, { method: 'POST', body: '{}' });
    const reader = (answer.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    finish?.();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: two\n\n');
  });

  it('keeps every connection of a wave of calls for the next, past the 256 Node keeps by default', async () => {
    const wave = 300;
    let waiting: ServerResponse[] = [];
    let allArrived: () => void = () => undefined;
    handlers.set('/held', (_request, _body, response) => {
      waiting.push(response);
      if (waiting.length === wave) allArrived();
    });
    let connections = 0;
    const count = () => (connections += 1);
    server.on('connection', count);
    const modelFetch = createModelFetch();
    try {
      for (let round = 0; round < 2; round += 1) {
        const arrived = new Promise<void>((resolve) => (allArrived = resolve));
        const answers = Array.from({ length: wave }, () => modelFetch(`${base}/held`, { method: 'POST', body: '{}' }));
        await arrived;
        for (const response of waiting) response.end('{}');
        waiting = [];
        await Promise.all(answers.map(async (answer) => await (await answer).text()));
      }
    } finally {
      server.off('connection', count);
    }
    expect(connections).toBe(wave);
  });

  it('rejects with the abort reason, and with TypeError("fetch failed") when it cannot connect', async () => {
    handlers.set('/never', () => undefined);
    const controller = new AbortController();
    const pending = createModelFetch()(`${base}/never`, { method: 'POST', body: '{}', signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const refused = await createModelFetch()(`http://127.0.0.1:${port}/`, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TypeError);
    expect((refused as TypeError).message).toBe('fetch failed');
    expect(((refused as TypeError).cause as { code?: string }).code).toBe('ECONNREFUSED');
  });

  it('fails a status or header that a Response refuses as a lost connection, without throwing elsewhere', async () => {
    handlers.set('/weird', (_request, _body, response) => {
      response.writeHead(999, 'Weird', { 'content-type': 'application/json' });
      response.end('{}');
    });
    const failed = await createModelFetch()(`${base}/weird`, { method: 'POST', body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(TypeError);
    expect((failed as TypeError).message).toBe('fetch failed');
    expect(String((failed as TypeError).cause)).toMatch(/status/);
  });

  it('fails a call whose server goes silent, whether before the answer or within its body', async () => {
    handlers.set('/silent', () => undefined);
    handlers.set('/stalls', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"partial":');
    });
    const modelFetch = createModelFetch({ silenceMs: 200 });
    for (const path of ['/silent', '/stalls']) {
      const failed = await modelFetch(`${base}${path}`, { method: 'POST', body: '{}' }).catch(
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(TypeError);
      expect(String(((failed as TypeError).cause as Error).message)).toMatch(/sent nothing for 200 ms|closed before/);
    }
  });

  it('decodes a compressed answer as fetch does, and drops the headers of the wire encoding', async () => {
    const plain = JSON.stringify({ text: 'x'.repeat(2_000) });
    const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const [encoding, encode] of Object.entries(encoders)) {
      handlers.set(`/packed-${encoding}`, (_request, _body, response) => {
        const packed = encode(Buffer.from(plain));
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-encoding': encoding,
          'content-length': packed.byteLength,
        });
        response.end(packed);
      });
      const answer = await createModelFetch()(`${base}/packed-${encoding}`, { method: 'POST', body: '{}' });
      expect(await answer.text()).toBe(plain);
      expect([answer.headers.get('content-encoding'), answer.headers.get('content-length')]).toEqual([null, null]);
    }
  });

  it('hands the fallback only what it does not carry itself', async () => {
    const seen: string[] = [];
    const fallback = (input: string | URL | Request) => {
      seen.push(String(input));
      return Promise.resolve(new Response('from fallback'));
    };
    const modelFetch = createModelFetch({ fallback });
    expect(await (await modelFetch('file:///etc/hostname')).text()).toBe('from fallback');
    await modelFetch(`${base}/echo`, { method: 'POST', body: new URLSearchParams({ a: '1' }) });
    expect(seen).toEqual(['file:///etc/hostname', `${base}/echo`]);
  });

  it('follows 307 and 308 within the origin, each hop checked, and refuses every other redirect', async () => {
    // Another origin (another port of the same host): it must never see the key or the prompt.
    const elsewhere: string[] = [];
    const other = createServer((request, response) => {
      elsewhere.push(`${request.method} ${request.url} ${request.headers['x-api-key'] ?? ''}`);
      response.end('{}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
    const redirect =
      (status: number, location: string): Handler =>
      (_request, _body, response) => {
        response.writeHead(status, { location });
        response.end();
      };
    handlers.set('/hop-1', redirect(307, '/hop-2'));
    handlers.set('/hop-2', redirect(308, `${base}/echo`));
    handlers.set('/away', redirect(307, `${otherBase}/steal`));
    handlers.set('/away-later', redirect(307, '/away'));
    handlers.set('/see-other', redirect(303, '/echo'));
    handlers.set('/loop', redirect(307, '/loop'));
    const modelFetch = createModelFetch({
      fallback: () => Promise.reject(new Error('the fallback must not follow redirects')),
    });
    const call = (path: string) =>
      modelFetch(`${base}${path}`, { method: 'POST', headers: { 'x-api-key': 'sk-secret' }, body: '{"p":1}' });
    try {
      expect(await (await call('/hop-1')).json()).toEqual({ method: 'POST', body: '{"p":1}', length: '7' });
      for (const [path, why] of [
        ['/away', `towards ${otherBase}`],
        ['/away-later', `towards ${otherBase}`],
        ['/see-other', 'answered 303'],
        ['/loop', 'too many redirects'],
      ] as const) {
        const error = await call(path).then(
          () => undefined,
          (thrown: unknown) => thrown,
        );
        expect(error).toBeInstanceOf(ModelRedirectRefused);
        expect((error as Error).message).toContain(why);
        expect((error as Error).message).not.toContain('sk-secret');
      }
      expect(elsewhere).toEqual([]);
    } finally {
      other.closeAllConnections();
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('stops reading an answer past the byte limit, compressed, streamed or plain, and fails it for good', async () => {
    const big = JSON.stringify({ ...chatAnswer, filler: 'x'.repeat(64 * 1024) });
    handlers.set('/big/chat/completions', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(big);
    });
    handlers.set('/big-gzip', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
      response.end(gzipSync(big)); // small on the wire, large once decoded
    });
    handlers.set('/big-stream', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (let event = 0; event < 64; event += 1) response.write(`data: ${'y'.repeat(1024)}\n\n`);
      response.end();
    });
    const fetch = createModelFetch({ maxResponseBytes: 16 * 1024 });
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => error,
      );
    for (const path of ['/big/chat/completions', '/big-gzip']) {
      const error = await failure(fetch(`${base}${path}`, { method: 'POST', body: '{}' }));
      expect(AgentqError.isInstance(error) && error.code).toBe('MODEL_RESPONSE_TOO_LARGE');
      expect(isRetryable(error)).toBe(false);
    }
    const streamed = await fetch(`${base}/big-stream`, { method: 'POST', body: '{}' });
    const readAll = failure(streamed.text());
    expect(await readAll).toMatchObject({ code: 'MODEL_RESPONSE_TOO_LARGE' });
    // Through the AI SDK, the error reaches the caller as it is (no retry, no provider error).
    const model = createOpenAICompatible({ name: 'loopback', baseURL: `${base}/big`, fetch }).chatModel('m');
    const viaSdk = await failure(generateText({ model, prompt: 'hi', maxRetries: 2 }));
    expect(AgentqError.isInstance(viaSdk) && viaSdk.code).toBe('MODEL_RESPONSE_TOO_LARGE');
    // Under the limit, the same answer goes through.
    const roomy = createModelFetch({ maxResponseBytes: 1024 * 1024 });
    expect((await roomy(`${base}/big-gzip`, { method: 'POST', body: '{}' })).status).toBe(200);
  });

  it('keeps the AI SDK answer and its retry classification of provider errors and outages', async () => {
    handlers.set('/ok/chat/completions', (_request, _body, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(chatAnswer));
    });
    for (const status of [400, 503]) {
      handlers.set(`/${status}/chat/completions`, (_request, _body, response) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ error: { message: `status ${status}` } }));
      });
    }
    const fetch = createModelFetch();
    const modelAt = (path: string) =>
      createOpenAICompatible({ name: 'loopback', baseURL: `${base}${path}`, fetch }).chatModel('m');
    const call = (path: string) => generateText({ model: modelAt(path), prompt: 'hi', maxRetries: 0 });
    expect((await call('/ok')).text).toBe('hello');
    const rejected = await call('/400').catch((error: unknown) => error);
    expect(APICallError.isInstance(rejected) && [rejected.statusCode, rejected.isRetryable]).toEqual([400, false]);
    const outage = await call('/503').catch((error: unknown) => error);
    expect(APICallError.isInstance(outage) && [outage.statusCode, outage.isRetryable]).toEqual([503, true]);
    const unreachable = await generateText({
      model: createOpenAICompatible({ name: 'loopback', baseURL: 'http://127.0.0.1:1', fetch }).chatModel('m'),
      prompt: 'hi',
      maxRetries: 0,
    }).catch((error: unknown) => error);
    expect(APICallError.isInstance(unreachable) && unreachable.isRetryable).toBe(true);
  });
});
