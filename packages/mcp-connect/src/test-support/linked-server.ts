import { serverDefinitionSchema, type ServerDefinition, type ServerDefinitionInput } from '@agentq/shared';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';

/** A definition for unit tests; its transport is never started when `openTransport` is given. */
export function testDefinition(overrides: Partial<ServerDefinitionInput> = {}): ServerDefinition {
  return serverDefinitionSchema.parse({
    id: 'mem',
    transport: { type: 'stdio', command: 'unused' },
    timeouts: { connectMs: 5_000, listMs: 5_000, callMs: 5_000 },
    ...overrides,
  });
}

/**
 * A low-level MCP server linked in memory: the test sets request handlers on `server` and hands
 * `openTransport` to `connectMcpServer`. Low-level, so a handler can answer with a JSON-RPC error
 * or never answer at all.
 */
export function linkedServer(setup: (server: Server) => void): {
  server: Server;
  openTransport: () => Transport;
} {
  const server = new Server({ name: 'mem', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  setup(server);
  return {
    server,
    openTransport: () => {
      const [client, serverSide] = InMemoryTransport.createLinkedPair();
      void server.connect(serverSide);
      return client;
    },
  };
}
