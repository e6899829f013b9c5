import { capResponseBody } from '@agentq/shared';

/** A cap on what one message of an HTTP MCP server may take, and the error past it. */
export interface MessageByteLimit {
  /** Most bytes of one message: a JSON answer, or one event of an event stream. */
  maxBytes: number;
  /** The error the read fails with past the cap; it names the setting behind it. */
  tooLarge: () => Error;
}

/**
 * How many times the budget of what a caller keeps one message may take before it is cut down:
 * room for the JSON around the kept text and for parts that are dropped afterwards. The warmer's
 * list cap and the worker's tool call cap both use it.
 */
export const MESSAGE_BUDGET_FACTOR = 4;

const CR = 0x0d;
const LF = 0x0a;

/**
 * `body` with each server-sent event limited to `maxBytes`: bytes are counted from the blank line
 * that ends one event to the next, and the stream errors as soon as an event runs past the cap,
 * before the event parser downstream has buffered it. Line ends may be CRLF, LF or CR, as in the
 * event-stream format; a stream of small events runs for as long as the server keeps it open.
 */
export function capEventBytes(body: ReadableStream<Uint8Array>, limit: MessageByteLimit): ReadableStream<Uint8Array> {
  let inEvent = 0;
  let atLineStart = true;
  let afterCr = false;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        for (const byte of chunk) {
          if (byte === LF && afterCr) {
            // The LF of a CRLF: the CR already ended the line.
            afterCr = false;
            continue;
          }
          afterCr = byte === CR;
          if (byte === CR || byte === LF) {
            // A line end at the start of a line is the blank line that ends an event.
            if (atLineStart) inEvent = 0;
            atLineStart = true;
            continue;
          }
          atLineStart = false;
          inEvent += 1;
          if (inEvent > limit.maxBytes) {
            controller.error(limit.tooLarge());
            return;
          }
        }
        controller.enqueue(chunk);
      },
    }),
  );
}

/**
 * A successful answer with its messages capped: an event stream event by event
 * ({@link capEventBytes}), any other body as a whole (a JSON answer is one message, or one batch).
 * Nothing past the cap is read.
 */
export function capMessageBytes(response: Response, limit: MessageByteLimit): Response {
  if (!response.body) return response;
  const type = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'text/event-stream') {
    return capResponseBody(response, { maxBytes: limit.maxBytes, onTooLarge: limit.tooLarge });
  }
  const capped = new Response(capEventBytes(response.body, limit), {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  Object.defineProperty(capped, 'url', { value: response.url, enumerable: true });
  return capped;
}
