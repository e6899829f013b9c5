import { AgentqError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { CappedReadBuffer } from './capped-read-buffer.js';

const limit = (maxBytes: number) => ({
  maxBytes,
  tooLarge: () => new AgentqError({ code: 'MCP_RESULT_TOO_LARGE', message: `over ${maxBytes}` }),
});

const line = (id: number, padding = '') => `${JSON.stringify({ jsonrpc: '2.0', id, result: { padding } })}\n`;

function readAll(buffer: CappedReadBuffer): unknown[] {
  const messages: unknown[] = [];
  for (let message = buffer.readMessage(); message !== null; message = buffer.readMessage()) messages.push(message);
  return messages;
}

describe('CappedReadBuffer', () => {
  it('passes many lines under the cap, however they are chunked', () => {
    const text = Array.from({ length: 30 }, (_, index) => line(index, 'x'.repeat(index))).join('');
    const buffer = new CappedReadBuffer(limit(100));
    const messages: unknown[] = [];
    for (const piece of text.match(/[\s\S]{1,7}/g) ?? []) {
      buffer.append(Buffer.from(piece));
      messages.push(...readAll(buffer));
    }
    expect(messages).toHaveLength(30);
    expect(messages[29]).toEqual({ jsonrpc: '2.0', id: 29, result: { padding: 'x'.repeat(29) } });
  });

  it('fails as soon as an unfinished line runs past the cap, and drops everything after', () => {
    const buffer = new CappedReadBuffer(limit(100));
    buffer.append(Buffer.from(line(1)));
    expect(readAll(buffer)).toHaveLength(1);
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":2,"result":{"padding":"'));
    buffer.append(Buffer.from('x'.repeat(40)));
    expect(() => buffer.append(Buffer.from('x'.repeat(40)))).toThrow('over 100');
    buffer.append(Buffer.from(`"}}\n${line(3)}`));
    expect(readAll(buffer)).toEqual([]);
  });

  it('fails on a long line that ends inside one chunk among short ones', () => {
    const buffer = new CappedReadBuffer(limit(100));
    expect(() => buffer.append(Buffer.from(`${line(1)}${line(2, 'x'.repeat(200))}${line(3)}`))).toThrow('over 100');
  });
});
