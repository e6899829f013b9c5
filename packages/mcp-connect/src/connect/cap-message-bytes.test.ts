import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentqError, silentLogger } from '@agentq/shared';
import { afterEach, describe, expect, it } from 'vitest';
import { listServerTools } from '../requests/list-server-tools.js';
import { capEventBytes, type MessageByteLimit } from './cap-message-bytes.js';
import { connectMcpServer } from './connect-mcp-server.js';

const limit = (maxBytes: number): MessageByteLimit => ({
  maxBytes,
  tooLarge: () => new AgentqError({ code: 'MCP_LIST_TOO_LARGE', message: `over ${maxBytes}` }),
});

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  return await new Response(stream).text();
}

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });
}

describe('capEventBytes', () => {
  it('passes a long stream of small events, whatever its line ends and chunking', async () => {
    const events = ['data: 12345\n\n', 'data: 1234\r\n\r\n', 'data: 12\rdata: 3\r\r', 'id: 7\n', 'data: 1234\n\n'];
    const text = events.join('').repeat(50);
    // Split in odd places, CRLF pairs among them.
    const chunks = text.match(/[\s\S]{1,3}/g) ?? [];
    expect(await readAll(capEventBytes(streamOf(...chunks), limit(20)))).toBe(text);
  });

  it('fails as soon as one event runs past the cap, lines of one event counted together', async () => {
    await expect(
      readAll(capEventBytes(streamOf('data: 1\n\n', 'data: 123\ndata: 456\n', 'data: 7'), limit(20))),
    ).rejects.toThrow('over 20');
  });
});

describe('connectMcpServer with a message limit', () => {
  let http: HttpServer | undefined;
  afterEach(async () => {
    http?.closeAllConnections();
    await new Promise<void>((resolve) => (http ? http.close(() => resolve()) : resolve()));
  });

  /** A Streamable HTTP server answering in JSON, its tools/list with `listBytes` bytes of padding. */
  async function startServer(listBytes: number, stream: boolean): Promise<{ url: string; written: () => number }> {
    let written = 0;
    http = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        if (request.method !== 'POST') return void response.writeHead(405).end();
        const message = JSON.parse(body) as { id?: number; method: string };
        if (message.id === undefined) return void response.writeHead(202).end();
        if (message.method === 'initialize') {
          const result = {
            protocolVersion: '2025-06-18',
            capabilities: { tools: {} },
            serverInfo: { name: 'big', version: '1' },
          };
          return void response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        }
        const head = `${stream ? 'data: ' : ''}{"jsonrpc":"2.0","id":${message.id},"result":{"tools":[{"name":"t","inputSchema":{"type":"object"},"description":"`;
        const tail = `"}]}}${stream ? '\n\n' : ''}`;
        response.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
        const piece = 'x'.repeat(65_536);
        response.write(head);
        let left = listBytes;
        const more = (): void => {
          while (left > 0 && !response.destroyed) {
            left -= piece.length;
            written += piece.length;
            if (!response.write(piece)) return void response.once('drain', more);
          }
          if (!response.destroyed) response.end(tail);
        };
        response.on('close', () => (left = 0));
        more();
      });
    });
    await new Promise<void>((resolve) => http?.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, written: () => written };
  }

  /** The tool list of a server answering with `listBytes` of padding, read under a 1 MB limit. */
  async function listWithLimit(listBytes: number, stream: boolean) {
    const server = await startServer(listBytes, stream);
    const connection = await connectMcpServer({
      definition: {
        id: 'big',
        enabled: true,
        transport: { type: 'streamable-http', url: server.url },
        timeouts: { connectMs: 5_000, listMs: 5_000, callMs: 5_000 },
      } as never,
      logger: silentLogger(),
      allowPrivateNetwork: true,
      messageLimit: limit(1_000_000),
    });
    try {
      const outcome = await listServerTools({ client: connection.client, serverId: 'big', timeoutMs: 5_000 }).catch(
        (caught: unknown) => caught,
      );
      return { outcome, written: server.written() };
    } finally {
      await connection.close();
    }
  }

  for (const stream of [false, true]) {
    it(`refuses a huge ${stream ? 'event-stream' : 'JSON'} tools/list answer while reading it`, async () => {
      const { outcome, written } = await listWithLimit(64 * 1024 * 1024, stream);
      expect(outcome).toMatchObject({ code: 'MCP_LIST_TOO_LARGE', message: expect.stringContaining('over 1000000') });
      expect(written).toBeLessThan(32 * 1024 * 1024);
    });
  }

  it('reads an answer within the limit as before', async () => {
    const { outcome } = await listWithLimit(65_536, false);
    expect(outcome).toHaveLength(1);
  });
});

describe('connectMcpServer with a message limit over stdio', () => {
  it('refuses an initialize answer past the limit with the limit error, not a plain connect failure', async () => {
    // A server that answers its first message with one line of 3 MB that never ends.
    const script = `process.stdin.once('data', () => process.stdout.write('{"jsonrpc":"2.0","id":0,"result":"' + 'x'.repeat(3e6)));`;
    const outcome = await connectMcpServer({
      definition: {
        id: 'big-stdio',
        enabled: true,
        transport: { type: 'stdio', command: process.execPath, args: ['-e', script] },
        timeouts: { connectMs: 30_000, listMs: 5_000, callMs: 5_000 },
      } as never,
      logger: silentLogger(),
      messageLimit: limit(1_000_000),
    }).catch((caught: unknown) => caught);
    expect(outcome).toMatchObject({ code: 'MCP_LIST_TOO_LARGE', message: 'over 1000000' });
  });
});
