/** Options of {@link readCappedBody} and {@link capResponseBody}. */
export interface CappedBodyOptions {
  /** Most bytes of the body read (after decompression). */
  maxBytes: number;
  /**
   * What a longer body gets: a function giving the error to fail with (the caller names its
   * setting in it), or `'truncate'` to keep the first `maxBytes` and leave the rest unread (an
   * error answer that is only quoted).
   */
  onTooLarge: (() => Error) | 'truncate';
}

/**
 * Wraps `body` so that it never yields more than `maxBytes`: past the cap the source is cancelled
 * and the stream either errors with `onTooLarge()` or ends (`'truncate'`). Reading is pulled, so
 * nothing past the cap is buffered.
 */
function capStream(body: ReadableStream<Uint8Array>, options: CappedBodyOptions): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      const room = options.maxBytes - total;
      total += value.byteLength;
      if (value.byteLength <= room) {
        controller.enqueue(value);
        return;
      }
      await reader.cancel().catch(() => undefined);
      if (options.onTooLarge === 'truncate') {
        if (room > 0) controller.enqueue(value.subarray(0, room));
        controller.close();
      } else {
        controller.error(options.onTooLarge());
      }
    },
    async cancel(reason) {
      await reader.cancel(reason);
    },
  });
}

function declaredTooLarge(response: Response, maxBytes: number): boolean {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  return Number.isFinite(declared) && declared > maxBytes;
}

/**
 * Reads a response body from outside into memory, never more than `maxBytes`: a declared
 * `Content-Length` over the cap fails before any byte is read, and a body that runs past the cap
 * (a missing or false length) fails, or is cut, as soon as it does. The one reader for every body
 * agentq reads from another host: `web_fetch` pages, search-provider answers, knowledge-base
 * URLs, error answers.
 */
export async function readCappedBody(response: Response, options: CappedBodyOptions): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array();
  if (options.onTooLarge !== 'truncate' && declaredTooLarge(response, options.maxBytes)) {
    await response.body.cancel().catch(() => undefined);
    throw options.onTooLarge();
  }
  const reader = capStream(response.body, options).getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
  }
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The same response with its body capped as {@link readCappedBody} caps it, for a library that
 * reads the body itself (the AI SDK's embedding providers): the library's read fails with
 * `onTooLarge()` past the cap (or, with `'truncate'`, ends there).
 */
export function capResponseBody(response: Response, options: CappedBodyOptions): Response {
  if (!response.body) return response;
  if (options.onTooLarge !== 'truncate' && declaredTooLarge(response, options.maxBytes)) {
    void response.body.cancel().catch(() => undefined);
    throw options.onTooLarge();
  }
  const headers = new Headers(response.headers);
  // The length no longer holds for a cut body, and the body is already decoded.
  headers.delete('content-length');
  headers.delete('content-encoding');
  const capped = new Response(capStream(response.body, options), {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
  Object.defineProperty(capped, 'url', { value: response.url, enumerable: true });
  return capped;
}
