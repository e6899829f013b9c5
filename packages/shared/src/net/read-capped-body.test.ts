import { describe, expect, it } from 'vitest';
import { AgentqError } from '../errors/agentq-error.js';
import { capResponseBody, readCappedBody } from './read-capped-body.js';

function endless(counter: { pulled: number }): ReadableStream<Uint8Array> {
  return new ReadableStream({
    pull(controller) {
      counter.pulled += 1;
      controller.enqueue(new Uint8Array(1000).fill(0x61));
    },
  });
}

const tooLarge = () => new AgentqError({ code: 'PAYLOAD_TOO_LARGE', message: 'over the cap' });

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  return await promise.then(
    () => undefined,
    (error: unknown) => (AgentqError.isInstance(error) ? error.code : String(error)),
  );
}

describe('readCappedBody', () => {
  it('reads a body within the cap whole', async () => {
    const bytes = await readCappedBody(new Response('hello'), { maxBytes: 5, onTooLarge: tooLarge });
    expect(new TextDecoder().decode(bytes)).toBe('hello');
  });

  it('fails an endless body at the cap without reading on', async () => {
    const counter = { pulled: 0 };
    expect(await codeOf(readCappedBody(new Response(endless(counter)), { maxBytes: 2500, onTooLarge: tooLarge }))).toBe(
      'PAYLOAD_TOO_LARGE',
    );
    expect(counter.pulled).toBeLessThan(10);
  });

  it('fails a declared length over the cap before reading', async () => {
    const counter = { pulled: 0 };
    const response = new Response(endless(counter), { headers: { 'content-length': '999999' } });
    expect(await codeOf(readCappedBody(response, { maxBytes: 100, onTooLarge: tooLarge }))).toBe('PAYLOAD_TOO_LARGE');
  });

  it('cuts at the cap with truncate', async () => {
    const counter = { pulled: 0 };
    const bytes = await readCappedBody(new Response(endless(counter)), { maxBytes: 2500, onTooLarge: 'truncate' });
    expect(bytes.byteLength).toBe(2500);
  });
});

describe('capResponseBody', () => {
  it('makes a library read fail past the cap', async () => {
    const counter = { pulled: 0 };
    const capped = capResponseBody(new Response(endless(counter), { status: 200 }), {
      maxBytes: 3000,
      onTooLarge: tooLarge,
    });
    expect(capped.status).toBe(200);
    expect(await codeOf(capped.text())).toBe('PAYLOAD_TOO_LARGE');
  });

  it('ends a truncated body at the cap', async () => {
    const capped = capResponseBody(new Response('0123456789', { status: 500 }), {
      maxBytes: 4,
      onTooLarge: 'truncate',
    });
    expect(await capped.text()).toBe('0123');
  });
});
