import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentqError, SECRET_MASK, serverDefinitionSchema, silentLogger } from '@agentq/shared';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, describe, expect, it } from 'vitest';
import { McpConnectError } from '../errors/mcp-connect-error.js';
import { linkedServer, testDefinition } from '../test-support/linked-server.js';
import { connectMcpServer } from './connect-mcp-server.js';

const httpDefinition = (url: string, type: 'streamable-http' | 'sse' = 'streamable-http') =>
  serverDefinitionSchema.parse({ id: 'web', transport: { type, url }, timeouts: { connectMs: 10_000 } });

const codeOf = (error: unknown) => (AgentqError.isInstance(error) ? error.code : undefined);

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

describe('connectMcpServer: the fetch-target guard', () => {
  it('refuses an HTTP server on a loopback or metadata address before connecting', async () => {
    for (const url of ['http://127.0.0.1:9/mcp', 'http://169.254.169.254/latest', 'http://localhost:9/mcp']) {
      const requests: string[] = [];
      const error = await failureOf(
        connectMcpServer({
          definition: httpDefinition(url),
          logger: silentLogger(),
          fetch: async (input) => {
            requests.push(String(input));
            throw new Error('must not be reached');
          },
        }),
      );
      expect(codeOf(error)).toBe('PRIVATE_ADDRESS');
      expect(requests).toEqual([]);
    }
  });

  it('lets a private address through when allowed (and then fails to connect, not to check)', async () => {
    const error = await failureOf(
      connectMcpServer({
        definition: httpDefinition('http://127.0.0.1:9/mcp'),
        logger: silentLogger(),
        allowPrivateNetwork: true,
      }),
    );
    expect(codeOf(error)).toBe('MCP_CONNECT_FAILED');
  });
});

describe('connectMcpServer: timeouts, errors and close', () => {
  it('initializes over the given transport and reports capabilities', async () => {
    const { openTransport } = linkedServer(() => undefined);
    const connection = await connectMcpServer({ definition: testDefinition(), logger: silentLogger(), openTransport });
    expect(connection.transport).toBe('stdio');
    expect(connection.capabilities?.tools?.listChanged).toBe(true);
    await connection.close();
  });

  it('fails with MCP_CONNECT_TIMEOUT when initialize gets no answer', async () => {
    // Nobody listens on the other end of the pair.
    const openTransport = () => InMemoryTransport.createLinkedPair()[0];
    const error = await failureOf(
      connectMcpServer({
        definition: testDefinition({ timeouts: { connectMs: 200, listMs: 1_000, callMs: 1_000 } }),
        logger: silentLogger(),
        openTransport,
      }),
    );
    expect(codeOf(error)).toBe('MCP_CONNECT_TIMEOUT');
    expect(McpConnectError.isInstance(error) && error.connectionBroken).toBe(true);
  });

  it('fails with MCP_CONNECT_TIMEOUT when the transport never finishes starting, and closes it', async () => {
    let closed = 0;
    const stuck: Transport = {
      start: () => new Promise<void>(() => undefined),
      send: async () => undefined,
      close: async () => {
        closed += 1;
      },
    };
    const error = await failureOf(
      connectMcpServer({
        definition: testDefinition({ timeouts: { connectMs: 200, listMs: 1_000, callMs: 1_000 } }),
        logger: silentLogger(),
        openTransport: () => stuck,
      }),
    );
    expect(codeOf(error)).toBe('MCP_CONNECT_TIMEOUT');
    expect(closed).toBeGreaterThan(0);
  });

  it('fails with MCP_CONNECT_FAILED and masks the resolved secrets in the message', async () => {
    const error = await failureOf(
      connectMcpServer({
        definition: testDefinition(),
        logger: silentLogger(),
        secretValues: ['s3cret-token-value'],
        openTransport: () => {
          throw new Error('could not start with --token s3cret-token-value');
        },
      }),
    );
    expect(codeOf(error)).toBe('MCP_CONNECT_FAILED');
    expect((error as Error).message).not.toContain('s3cret-token-value');
    expect((error as Error).message).toContain(SECRET_MASK);
    expect((error as Error).cause).toBeUndefined();
  });

  it('reports an unexpected close once, and not a close asked for', async () => {
    const first = linkedServer(() => undefined);
    let unexpected = 0;
    const connection = await connectMcpServer({
      definition: testDefinition(),
      logger: silentLogger(),
      openTransport: first.openTransport,
      onUnexpectedClose: () => (unexpected += 1),
    });
    await first.server.close();
    await expect.poll(() => unexpected).toBe(1);
    // Closing after the server went away is harmless and does not count again.
    await connection.close();

    const second = linkedServer(() => undefined);
    const closedOnPurpose = await connectMcpServer({
      definition: testDefinition(),
      logger: silentLogger(),
      openTransport: second.openTransport,
      onUnexpectedClose: () => (unexpected += 1),
    });
    await Promise.all([closedOnPurpose.close(), closedOnPurpose.close()]);
    expect(unexpected).toBe(1);
  });
});

describe('connectMcpServer: a stdio child', () => {
  it("puts the child's last stderr, secrets masked, into the connect error", async () => {
    const definition = serverDefinitionSchema.parse({
      id: 'dies',
      transport: {
        type: 'stdio',
        command: process.execPath,
        args: ['-e', 'process.stderr.write("fatal: bad token " + process.env.TOKEN + "\\n"); process.exit(3)'],
        env: { TOKEN: 'resolved-secret-42' },
      },
      timeouts: { connectMs: 30_000 },
    });
    const error = await failureOf(
      connectMcpServer({ definition, logger: silentLogger(), secretValues: ['resolved-secret-42'] }),
    );
    expect(codeOf(error)).toBe('MCP_CONNECT_FAILED');
    expect((error as Error).message).toContain(`fatal: bad token ${SECRET_MASK}`);
    expect((error as Error).message).not.toContain('resolved-secret-42');
  });
});

/** A legacy HTTP+SSE-only MCP server on loopback: GET opens the stream, POST to it answers `status`. */
async function startSseOnlyServer(options: { postStatus: number }): Promise<{
  url: string;
  gets: () => number;
  stop: () => Promise<void>;
}> {
  const sessions = new Map<string, SSEServerTransport>();
  let gets = 0;
  const http: HttpServer = createServer((request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/mcp' && request.method === 'GET') {
        gets += 1;
        const transport = new SSEServerTransport('/messages', response);
        sessions.set(transport.sessionId, transport);
        const mcp = new McpServer({ name: 'sse-only', version: '1.0.0' });
        mcp.registerTool('ping', { description: 'Answers pong.' }, async () => ({
          content: [{ type: 'text', text: 'pong' }],
        }));
        await mcp.connect(transport);
        return;
      }
      if (url.pathname === '/messages' && request.method === 'POST') {
        const transport = sessions.get(url.searchParams.get('sessionId') ?? '');
        if (transport) return await transport.handlePostMessage(request, response);
      }
      response.writeHead(url.pathname === '/mcp' ? options.postStatus : 404).end();
    })();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    gets: () => gets,
    stop: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

describe('connectMcpServer: Streamable HTTP to SSE fallback', () => {
  const stops: Array<() => Promise<void>> = [];
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
  });

  it('falls back to SSE on a 405, through the injected fetch, and the tools answer', async () => {
    const server = await startSseOnlyServer({ postStatus: 405 });
    stops.push(server.stop);
    const seen: string[] = [];
    const countingFetch: typeof fetch = async (input, init) => {
      seen.push(`${init?.method ?? 'GET'} ${new URL(String(input instanceof Request ? input.url : input)).pathname}`);
      return await fetch(input, init);
    };
    const connection = await connectMcpServer({
      definition: httpDefinition(server.url),
      logger: silentLogger(),
      allowPrivateNetwork: true,
      fetch: countingFetch,
    });
    try {
      expect(connection.transport).toBe('sse');
      const result = await connection.client.callTool({ name: 'ping', arguments: {} });
      expect(result.content).toEqual([{ type: 'text', text: 'pong' }]);
      expect(seen).toContain('POST /mcp');
      expect(seen).toContain('GET /mcp');
      expect(seen).toContain('POST /messages');
    } finally {
      await connection.close();
    }
  });

  it('does not fall back when the server refuses with 401: it needs authorization', async () => {
    const server = await startSseOnlyServer({ postStatus: 401 });
    stops.push(server.stop);
    const error = await failureOf(
      connectMcpServer({ definition: httpDefinition(server.url), logger: silentLogger(), allowPrivateNetwork: true }),
    );
    expect(codeOf(error)).toBe('MCP_AUTH_REQUIRED');
    expect(server.gets()).toBe(0);
  });

  it('speaks SSE directly to an sse definition', async () => {
    const server = await startSseOnlyServer({ postStatus: 405 });
    stops.push(server.stop);
    const connection = await connectMcpServer({
      definition: httpDefinition(server.url, 'sse'),
      logger: silentLogger(),
      allowPrivateNetwork: true,
    });
    expect(connection.transport).toBe('sse');
    await connection.close();
  });
});
