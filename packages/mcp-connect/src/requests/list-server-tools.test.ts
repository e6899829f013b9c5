import { AgentqError, silentLogger } from '@agentq/shared';
import { ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectMcpServer, type McpConnection } from '../connect/connect-mcp-server.js';
import { McpConnectError } from '../errors/mcp-connect-error.js';
import { linkedServer, testDefinition } from '../test-support/linked-server.js';
import { listServerTools } from './list-server-tools.js';

type ListHandler = (cursor: string | undefined) => Promise<{ tools: unknown[]; nextCursor?: string }>;

async function connected(handler: ListHandler) {
  const linked = linkedServer((server) =>
    server.setRequestHandler(
      ListToolsRequestSchema,
      async (request) => (await handler(request.params?.cursor)) as never,
    ),
  );
  const connection: McpConnection = await connectMcpServer({
    definition: testDefinition(),
    logger: silentLogger(),
    openTransport: linked.openTransport,
  });
  return { ...linked, connection };
}

const tool = (name: string) => ({ name, inputSchema: { type: 'object' } });

async function listFailure(handler: ListHandler, timeoutMs = 5_000) {
  const { connection } = await connected(handler);
  try {
    return await listServerTools({ client: connection.client, serverId: 'mem', timeoutMs }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
  } finally {
    await connection.close();
  }
}

describe('listServerTools', () => {
  it('follows nextCursor to the end', async () => {
    const { connection } = await connected(async (cursor) =>
      cursor === undefined ? { tools: [tool('a')], nextCursor: 'p2' } : { tools: [tool('b'), { broken: true }] },
    );
    const items = await listServerTools({ client: connection.client, serverId: 'mem', timeoutMs: 5_000 });
    expect(items).toEqual([tool('a'), tool('b'), { broken: true }]);
    await connection.close();
  });

  it('stops at the first page past maxItems with MCP_LIST_TOO_LARGE, asking for no further page', async () => {
    const asked: Array<string | undefined> = [];
    const { connection } = await connected(async (cursor) => {
      asked.push(cursor);
      const page = Number(cursor ?? '0');
      return { tools: [tool(`a${page}`), tool(`b${page}`)], nextCursor: String(page + 1) };
    });
    const caught = await listServerTools({
      client: connection.client,
      serverId: 'mem',
      timeoutMs: 5_000,
      maxItems: 3,
    }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await connection.close();
    expect(AgentqError.isInstance(caught) && caught.code).toBe('MCP_LIST_TOO_LARGE');
    expect(asked).toEqual([undefined, '1']);
  });

  it('fails with MCP_LIST_FAILED on a repeated cursor instead of looping', async () => {
    const error = await listFailure(async () => ({ tools: [tool('a')], nextCursor: 'same' }));
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_LIST_FAILED');
  });

  it('fails with MCP_LIST_TIMEOUT when the list takes longer than its timeout', async () => {
    const error = await listFailure(() => new Promise(() => undefined), 200);
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_LIST_TIMEOUT');
    expect(McpConnectError.isInstance(error) && error.connectionBroken).toBe(true);
  });

  it('fails with MCP_LIST_FAILED on a JSON-RPC error, keeping the connection usable', async () => {
    const error = await listFailure(async () => {
      throw new McpError(ErrorCode.InternalError, 'list is broken');
    });
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_LIST_FAILED');
    expect(McpConnectError.isInstance(error) && error.connectionBroken).toBe(false);
  });

  it('fails with MCP_TRANSPORT_CLOSED when the server goes away mid-list', async () => {
    const linked = await connected(async (cursor) => {
      if (cursor === undefined) return { tools: [tool('a')], nextCursor: 'p2' };
      void linked.server.close();
      return await new Promise(() => undefined);
    });
    const error = await listServerTools({ client: linked.connection.client, serverId: 'mem', timeoutMs: 5_000 }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_TRANSPORT_CLOSED');
    expect(McpConnectError.isInstance(error) && error.connectionBroken).toBe(true);
    await linked.connection.close();
  });
});
