import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AgentqError, serverDefinitionSchema, silentLogger, type ServerDefinition } from '@agentq/shared';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { ToolCallAlreadyClaimed, withToolCallScope } from '../run/tool-call-claims.js';
import { McpClientPool } from './mcp-client-pool.js';

function definition(overrides: Partial<ServerDefinition> = {}): ServerDefinition {
  return serverDefinitionSchema.parse({
    id: 'mem',
    transport: { type: 'stdio', command: 'unused' },
    timeouts: { connectMs: 1_000, listMs: 1_000, callMs: 300 },
    ...overrides,
  });
}

/** A linked in-memory server per connect, counting connects and keeping the server sides. */
function inMemoryServers() {
  const servers: McpServer[] = [];
  let connects = 0;
  let closed = 0;
  let failNext = 0;
  const openTransport = () => {
    connects += 1;
    if (failNext > 0) {
      failNext -= 1;
      throw new Error('spawn failed');
    }
    const [client, server] = InMemoryTransport.createLinkedPair();
    const mcp = new McpServer({ name: 'mem', version: '1.0.0' });
    mcp.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({
      content: [{ type: 'text', text }],
    }));
    mcp.registerTool('never', { inputSchema: {} }, async () => await new Promise<never>(() => undefined));
    void mcp.connect(server).then(() => {
      mcp.server.onclose = () => {
        closed += 1;
      };
    });
    servers.push(mcp);
    return client;
  };
  return {
    openTransport,
    servers,
    get connects() {
      return connects;
    },
    /** Server sides whose session ended. */
    get closed() {
      return closed;
    },
    failNextConnect() {
      failNext += 1;
    },
  };
}

describe('McpClientPool', () => {
  let pool: McpClientPool;
  afterEach(async () => {
    await pool?.close();
  });

  it('connects lazily on the first call and reuses the client', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    expect(servers.connects).toBe(0);
    const request = { serverId: 'mem', definition: definition(), toolName: 'echo' };
    const [a, b] = await Promise.all([
      pool.callTool({ ...request, input: { text: 'one' } }),
      pool.callTool({ ...request, input: { text: 'two' } }),
    ]);
    expect(a.content).toEqual([{ type: 'text', text: 'one' }]);
    expect(b.content).toEqual([{ type: 'text', text: 'two' }]);
    expect(servers.connects).toBe(1);
    expect(pool.size).toBe(1);
  });

  it("claims the run's tool call its signal belongs to once connected, and fails the call when refused", async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    const request = { serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'hi' } };
    const claims: string[] = [];
    const run = new AbortController();
    const callAs = (toolCallId: string, refuse = false) =>
      withToolCallScope(
        { toolCallId, messages: [], abortSignal: run.signal },
        {
          claim: async () => {
            // The connection is open before the claim: a worker that dies while a server starts has claimed nothing.
            claims.push(`${toolCallId} after ${servers.connects} connect(s)`);
            if (refuse) throw new ToolCallAlreadyClaimed({ claimedBy: 'other' });
          },
        },
        (options) => pool.callTool({ ...request, signal: options.abortSignal, toolCallId }),
      );
    expect((await callAs('c1')).content).toEqual([{ type: 'text', text: 'hi' }]);
    await expect(callAs('c2', true)).rejects.toBeInstanceOf(ToolCallAlreadyClaimed);
    // A request outside a run's tool call (the run's own signal, or none) claims nothing.
    await pool.callTool({ ...request, signal: run.signal });
    await pool.callTool(request);
    expect(claims).toEqual(['c1 after 1 connect(s)', 'c2 after 1 connect(s)']);
  });

  it('never caches a failed connect', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    servers.failNextConnect();
    const request = { serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } };
    await expect(pool.callTool(request)).rejects.toSatisfy(
      (error) => AgentqError.isInstance(error) && error.code === 'MCP_CONNECT_FAILED',
    );
    expect(pool.size).toBe(0);
    await expect(pool.callTool(request)).resolves.toMatchObject({ content: [{ type: 'text', text: 'x' }] });
    expect(servers.connects).toBe(2);
  });

  it('keys clients by definition hash, so a changed definition gets its own client', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    await pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'a' } });
    const changed = definition({ transport: { type: 'stdio', command: 'other', args: [], env: {} } });
    await pool.callTool({ serverId: 'mem', definition: changed, toolName: 'echo', input: { text: 'b' } });
    expect(servers.connects).toBe(2);
  });

  it('opens a new session once the server was restarted, and closes the old one', async () => {
    const servers = inMemoryServers();
    const generations = new Map<string, string>();
    let unreadable = false;
    pool = new McpClientPool({
      logger: silentLogger(),
      openTransport: servers.openTransport,
      sessions: {
        current: async (serverId) => {
          if (unreadable) throw new Error('redis is away');
          return generations.get(serverId) ?? '';
        },
      },
    });
    const request = { serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } };
    await pool.callTool(request);
    await pool.callTool(request);
    expect(servers.connects).toBe(1);

    generations.set('mem', '1');
    await pool.callTool(request);
    expect(servers.connects).toBe(2);
    await vi.waitFor(() => expect(servers.closed).toBe(1));
    expect(pool.size).toBe(1);
    await pool.callTool(request);
    expect(servers.connects).toBe(2);

    // Without an answer about the generation, the open client serves the call.
    unreadable = true;
    await expect(pool.callTool(request)).resolves.toMatchObject({ content: [{ type: 'text', text: 'x' }] });
    expect(servers.connects).toBe(2);
  });

  it('lets a call in flight finish on the old session of a restarted server', async () => {
    const servers = inMemoryServers();
    let generation = '';
    pool = new McpClientPool({
      logger: silentLogger(),
      openTransport: servers.openTransport,
      sessions: { current: async () => generation },
    });
    const slow = pool.callTool({
      serverId: 'mem',
      definition: definition({ timeouts: { connectMs: 1_000, listMs: 1_000, callMs: 150 } }),
      toolName: 'never',
      input: {},
    });
    await vi.waitFor(() => expect(servers.connects).toBe(1));
    generation = '1';
    await pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } });
    expect(servers.connects).toBe(2);
    // The old session stays open for the call it carries; it ends with that call.
    expect(servers.closed).toBe(0);
    await expect(slow).rejects.toSatisfy((error) => AgentqError.isInstance(error) && error.code === 'MCP_CALL_TIMEOUT');
    await vi.waitFor(() => expect(servers.closed).toBe(1));
  });

  it('evicts a client whose server went away, and reconnects on the next call', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    const request = { serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } };
    await pool.callTool(request);
    await servers.servers[0]?.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(pool.size).toBe(0);
    await pool.callTool(request);
    expect(servers.connects).toBe(2);
  });

  it('applies the definition call timeout and evicts the client', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    await expect(
      pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'never', input: {} }),
    ).rejects.toSatisfy((error) => AgentqError.isInstance(error) && error.code === 'MCP_CALL_TIMEOUT');
    expect(pool.size).toBe(0);
  });

  it('keeps the client when a tool fails on its own terms', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    await pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } });
    await expect(
      pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 1 } }),
    ).resolves.toMatchObject({ isError: true });
    expect(pool.size).toBe(1);
    expect(servers.connects).toBe(1);
  });

  it('closes the least recently used idle client when the pool is full', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport, maxClients: 2 });
    const call = (id: string) =>
      pool.callTool({ serverId: id, definition: definition({ id }), toolName: 'echo', input: { text: id } });
    await call('a');
    await call('b');
    await call('a');
    expect(pool.size).toBe(2);
    await call('c');
    expect(pool.size).toBe(2);
    expect(servers.connects).toBe(3);
    // `b` was the least recently used and went; `a` is still pooled.
    await call('a');
    expect(servers.connects).toBe(3);
    await call('b');
    expect(servers.connects).toBe(4);
  });

  it('closes idle clients', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport, idleMs: 30 });
    await pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } });
    expect(pool.size).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(pool.size).toBe(0);
  });

  it('refuses HTTP servers on private addresses unless allowed, without opening a transport', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    const http = definition({ transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', headers: {} } });
    const error = await pool
      .callTool({ serverId: 'mem', definition: http, toolName: 'echo', input: { text: 'x' } })
      .catch((caught: unknown) => caught);
    expect(AgentqError.isInstance(error) && error.code).toBe('PRIVATE_ADDRESS');
    expect(servers.connects).toBe(0);
    const allowed = new McpClientPool({
      logger: silentLogger(),
      openTransport: servers.openTransport,
      allowPrivateFetch: true,
    });
    await expect(
      allowed.callTool({ serverId: 'mem', definition: http, toolName: 'echo', input: { text: 'x' } }),
    ).resolves.toMatchObject({ content: [{ type: 'text', text: 'x' }] });
    await allowed.close();
  });

  it("reads an HTTP server's error answer only up to errorBodyMaxBytes", async () => {
    // A body far past the cap: only its first bytes may reach the error; a stream that counts what
    // was pulled shows the rest is never read.
    let pulled = 0;
    const chunk = new TextEncoder().encode('x'.repeat(1024));
    const fetch = (async () => {
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          pulled += chunk.byteLength;
          if (pulled > 64 * 1024) controller.close();
          else controller.enqueue(chunk);
        },
      });
      return new Response(body, { status: 500, headers: { 'content-type': 'text/plain' } });
    }) as typeof globalThis.fetch;
    pool = new McpClientPool({ logger: silentLogger(), allowPrivateFetch: true, fetch, errorBodyMaxBytes: 1024 });
    const http = definition({ transport: { type: 'streamable-http', url: 'http://127.0.0.1:9/mcp', headers: {} } });
    const error = await pool
      .callTool({ serverId: 'mem', definition: http, toolName: 'echo', input: { text: 'x' } })
      .catch((caught: unknown) => caught);
    expect(AgentqError.isInstance(error) && error.code).toBe('MCP_CONNECT_FAILED');
    // The default cap (8192) would read eight chunks or more.
    expect(pulled).toBeLessThan(8 * 1024);
  });

  it('refuses calls after close, and close is idempotent', async () => {
    const servers = inMemoryServers();
    pool = new McpClientPool({ logger: silentLogger(), openTransport: servers.openTransport });
    await Promise.all([pool.close(), pool.close()]);
    await expect(
      pool.callTool({ serverId: 'mem', definition: definition(), toolName: 'echo', input: { text: 'x' } }),
    ).rejects.toSatisfy((error) => AgentqError.isInstance(error) && error.code === 'POOL_CLOSED');
  });
});
