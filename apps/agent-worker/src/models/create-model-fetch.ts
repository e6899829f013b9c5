import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { pipeline, Readable, Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { NonRetryableError } from '@agentq/shared';

/** The `fetch` the AI SDK providers take (their `fetch` option). */
export type ModelFetch = typeof globalThis.fetch;

/** Options of {@link createModelFetch}. */
export interface ModelFetchOptions {
  /**
   * Where requests this transport does not handle itself go (a `Request` object, a body other
   * than a string or bytes, a scheme other than http(s)). Redirects never go there: see
   * {@link createModelFetch}. @default globalThis.fetch
   */
  fallback?: ModelFetch;
  /**
   * How long the server may send nothing (while connecting, before the answer's headers, or
   * within its body) before the call fails as a lost connection. @default 300 000
   */
  silenceMs?: number;
  /**
   * The most bytes (as decoded) one answer may hold, a streamed answer's events together; past it
   * the call fails with `MODEL_RESPONSE_TOO_LARGE`, not retried. @default 8 MiB
   */
  maxResponseBytes?: number;
}

// Idle pooled sockets close after this long, like undici's default keep-alive timeout, so a
// connection the provider has dropped in the meantime is rarely picked for the next call.
const IDLE_SOCKET_MS = 4_000;
// Every idle socket is kept until it has been idle that long. Node's default keeps 256 and closes
// the rest as they come free, so a worker with more model calls in flight than that opened (and,
// over TLS, handshook) a new connection for most calls past the 256th of each wave. The sockets
// kept never outnumber the calls that were in flight at once.
const MAX_FREE_SOCKETS = Number.POSITIVE_INFINITY;
// Same-origin 307/308 hops followed before a call fails.
const MAX_REDIRECTS = 5;
// A call fails (retryably, as a lost connection) when the server sends nothing for this long:
// while connecting, before the answer's headers, or within its body. undici's headers and body
// timeouts are the same 300 s.
const SILENCE_MS = 300_000;
// AGENTQ_MAX_MODEL_RESPONSE_BYTES's default.
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * A `fetch` for model providers over `node:http(s)` with keep-alive agents. The providers call
 * `fetch` once per model call with a JSON string body and read the whole answer; WHATWG `fetch`
 * spends about 2.5 ms of CPU per such call on request cloning, web streams and header checks, most
 * of a parked run's CPU besides the model itself. This transport sends the body as it is and hands
 * back a `Response` built from the collected answer (an event stream is passed on as a stream, not
 * collected).
 *
 * What the providers rely on stays as `fetch` does it: the abort signal rejects with its reason
 * (an `AbortError` by default) at any point; a failure to connect or a connection lost before the
 * answer is complete rejects with `TypeError('fetch failed', { cause })`, which the AI SDK turns into
 * a retryable `APICallError`; status, status text and headers are the server's. Anything else goes
 * to `fallback`. No environment proxy is consulted, as Node 20's `fetch` consults none either.
 *
 * Redirects are where this transport differs on purpose. A model request carries the provider's
 * key (`x-api-key` for Anthropic, which WHATWG `fetch` forwards across origins) and the whole
 * prompt, so a redirect is followed only when it keeps the method and body (307, 308) and stays on
 * the origin of the request (scheme, host and port), each hop checked, at most five; any other
 * redirect fails the call with {@link ModelRedirectRefused}, naming where it pointed, before
 * anything is sent there.
 */
export function createModelFetch(options: ModelFetchOptions = {}): ModelFetch {
  const fallback = options.fallback ?? ((input, init) => globalThis.fetch(input, init));
  const agents = {
    'http:': new HttpAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: MAX_FREE_SOCKETS }),
    'https:': new HttpsAgent({ keepAlive: true, timeout: IDLE_SOCKET_MS, maxFreeSockets: MAX_FREE_SOCKETS }),
  };
  return async (input, init) => {
    const url = typeof input === 'string' ? safeUrl(input) : input instanceof URL ? input : undefined;
    // The body goes out as given: no encoded copy is held for as long as the model takes.
    const body = init?.body ?? undefined;
    const sendable = body === undefined || typeof body === 'string' || body instanceof Uint8Array;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !sendable) {
      return await fallback(input, init);
    }
    const headers = plainHeaders(init?.headers, body);
    for (let target = url, hops = 0; ; hops += 1) {
      const answer = await send({
        url: target,
        agent: agents[target.protocol as 'http:' | 'https:'],
        method: init?.method ?? 'GET',
        headers,
        body,
        signal: init?.signal ?? undefined,
        silenceMs: options.silenceMs,
        maxResponseBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
      });
      if (answer instanceof Response) return answer;
      const next = safeUrl(answer.location, target);
      if (!next || next.origin !== url.origin || (answer.status !== 307 && answer.status !== 308)) {
        throw new ModelRedirectRefused(target, answer.status, next?.origin ?? answer.location);
      }
      if (hops >= MAX_REDIRECTS) throw new ModelRedirectRefused(target, answer.status, 'too many redirects');
      target = next;
    }
  };
}

/**
 * A model endpoint answered with a redirect this transport does not follow: to another origin, one
 * that changes the method (301, 302, 303), or one hop too many. Not retryable: the base URL is
 * wrong, and nothing was sent to where it pointed.
 */
export class ModelRedirectRefused extends NonRetryableError {
  constructor(from: URL, status: number, to: string) {
    super({
      code: 'MODEL_REJECTED',
      message:
        `model endpoint ${from.origin}${from.pathname} answered ${status} towards ${to}; refused: model requests ` +
        'carry the provider key and the prompt, so only 307/308 redirects within the same origin are followed ' +
        '(check the provider base URL)',
    });
    this.name = 'ModelRedirectRefused';
  }
}

function safeUrl(text: string, base?: URL): URL | undefined {
  try {
    return new URL(text, base);
  } catch {
    return undefined;
  }
}

/** The request headers as one plain object, with the body's length. */
function plainHeaders(given: RequestInit['headers'], body: string | Uint8Array | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (given instanceof Headers || Array.isArray(given)) {
    for (const [name, value] of new Headers(given)) headers[name] = value;
  } else if (given) {
    // The providers pass a plain object in which an unset header may be `undefined`.
    for (const [name, value] of Object.entries(given as Record<string, string | undefined>)) {
      if (value !== undefined) headers[name.toLowerCase()] = value;
    }
  }
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}

interface SendOptions {
  url: URL;
  agent: HttpAgent;
  method: string;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  signal: AbortSignal | undefined;
  silenceMs: number | undefined;
  maxResponseBytes: number;
}

/** A 3xx answer with a location, not yet followed. */
interface RedirectAnswer {
  status: number;
  location: string;
}

/** One request; resolves with the answer, or the redirect for a 3xx with a location. */
function send(options: SendOptions): Promise<Response | RedirectAnswer> {
  const { url, signal } = options;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  const silenceMs = options.silenceMs ?? SILENCE_MS;
  const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
    method: options.method,
    headers: options.headers,
    agent: options.agent,
    // Set before the socket connects, so it bounds the connect, the wait for the answer's
    // headers and every pause in its body, as undici's connect, headers and body timeouts do.
    timeout: silenceMs,
  });
  request.on('timeout', () => request.destroy(new Error(`the model server sent nothing for ${silenceMs} ms`)));
  request.end(options.body);
  return answerOf(request, signal, options.maxResponseBytes);
}

/** A model answer past the byte limit: the run fails, and is not retried (the same call would answer the same). */
function tooLarge(maxBytes: number): NonRetryableError {
  return new NonRetryableError({
    code: 'MODEL_RESPONSE_TOO_LARGE',
    message: `the model provider's answer is larger than ${maxBytes} bytes (AGENTQ_MAX_MODEL_RESPONSE_BYTES); it was not read further`,
  });
}

/** The answer to a sent request, collected (an event stream is passed on as it arrives). */
function answerOf(
  request: ClientRequest,
  signal: AbortSignal | undefined,
  maxBytes: number,
): Promise<Response | RedirectAnswer> {
  return new Promise((resolve, reject) => new PendingAnswer({ request, signal, maxBytes, resolve, reject }).listen());
}

/**
 * One request's answer while it is awaited: settled once, by the answer, a failure or the abort
 * signal (the object is the signal's listener). Methods rather than named closures: a model call
 * in flight holds this one object, where under tsx each named function made per call would carry
 * a property dictionary of its own.
 */
class PendingAnswer {
  private settled = false;

  constructor(
    private readonly call: {
      request: ClientRequest;
      signal: AbortSignal | undefined;
      maxBytes: number;
      resolve: (answer: Response | RedirectAnswer) => void;
      reject: (reason: unknown) => void;
    },
  ) {}

  listen(): void {
    const { request, signal } = this.call;
    signal?.addEventListener('abort', this, { once: true });
    request.on('error', (error) => this.fail(error));
    request.on('response', (answer) => this.onResponse(answer));
  }

  /** The abort signal fired. */
  handleEvent(): void {
    if (this.settle()) this.call.reject(abortError(this.call.signal as AbortSignal));
    this.call.request.destroy();
  }

  /** Whether this settles the call (it was not settled yet). */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    this.call.signal?.removeEventListener('abort', this);
    return true;
  }

  private fail(cause: unknown): void {
    if (this.settle()) this.call.reject(new TypeError('fetch failed', { cause }));
  }

  // A status or header a `Response` refuses (a status of 999, say) fails this call like a lost
  // connection; thrown inside an event listener it would take the whole process down.
  private answerWith(answer: IncomingMessage, body: Buffer | ReadableStream<Uint8Array>): void {
    let response: Response;
    try {
      response = responseOf(answer, body);
    } catch (error) {
      answer.destroy();
      this.fail(error);
      return;
    }
    if (this.settle()) this.call.resolve(response);
  }

  private onResponse(answer: IncomingMessage): void {
    const { signal, maxBytes } = this.call;
    const { statusCode, headers } = answer;
    if (statusCode && statusCode >= 300 && statusCode < 400 && headers.location) {
      answer.resume();
      if (this.settle()) this.call.resolve({ status: statusCode, location: headers.location });
      return;
    }
    const body = decoded(answer, (error) => this.fail(error));
    if (isEventStream(answer)) {
      // Handed over as it arrives; an abort from here on ends the stream with the signal's reason,
      // and the byte limit with MODEL_RESPONSE_TOO_LARGE.
      let streamed = 0;
      const counted = pipeline(
        body,
        new Transform({
          transform(chunk: Buffer, _encoding, done) {
            streamed += chunk.length;
            if (streamed <= maxBytes) return done(null, chunk);
            done(tooLarge(maxBytes));
            answer.destroy();
          },
        }),
        () => undefined,
      );
      this.answerWith(answer, Readable.toWeb(counted) as ReadableStream<Uint8Array>);
      if (!signal) return;
      const endStream = () => answer.destroy(abortError(signal));
      signal.addEventListener('abort', endStream, { once: true });
      answer.once('close', () => signal.removeEventListener('abort', endStream));
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    body.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      chunks.length = 0;
      // Settled first: closing the answer makes it report an error of its own.
      if (this.settle()) this.call.reject(tooLarge(maxBytes));
      answer.destroy();
    });
    body.on('error', (error) => this.fail(error));
    answer.on('aborted', () => this.fail(new Error('the connection closed before the answer was complete')));
    body.on('end', () => this.answerWith(answer, Buffer.concat(chunks)));
  }
}

/** The answer's body, decompressed when the server compressed it (as `fetch` does). */
function decoded(answer: IncomingMessage, fail: (cause: unknown) => void): Readable {
  const encoding = (answer.headers['content-encoding'] ?? '').trim().toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : undefined;
  if (!decoder) return answer;
  return pipeline(answer, decoder, (error) => {
    if (error) fail(error);
  });
}

function isEventStream(answer: IncomingMessage): boolean {
  return (answer.headers['content-type'] ?? '').toLowerCase().startsWith('text/event-stream');
}

// Headers that describe the bytes on the wire, not the decoded body handed on.
const WIRE_HEADERS = new Set(['content-encoding', 'content-length']);

function responseOf(answer: IncomingMessage, body: Buffer | ReadableStream<Uint8Array>): Response {
  const status = answer.statusCode ?? 200;
  const headers = new Headers();
  const raw = answer.rawHeaders;
  const wasEncoded = answer.headers['content-encoding'] !== undefined;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const name = raw[index] as string;
    if (wasEncoded && WIRE_HEADERS.has(name.toLowerCase())) continue;
    headers.append(name, raw[index + 1] as string);
  }
  // A Response refuses a body for these statuses.
  const empty = status === 204 || status === 205 || status === 304;
  return new Response(empty ? null : body, { status, statusText: answer.statusMessage ?? '', headers });
}

/** What `fetch` rejects with on abort: the signal's reason, an `AbortError` by default. */
function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError');
}
