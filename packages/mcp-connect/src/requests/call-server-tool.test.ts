import { AgentqError, SECRET_MASK, silentLogger } from '@agentq/shared';
import { CallToolRequestSchema, ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { connectMcpServer } from '../connect/connect-mcp-server.js';
import { McpConnectError } from '../errors/mcp-connect-error.js';
import { linkedServer, testDefinition } from '../test-support/linked-server.js';
import { callServerTool } from './call-server-tool.js';

type CallHandler = (name: string) => Promise<Record<string, unknown>>;

async function call(handler: CallHandler, options: { toolName?: string; timeoutMs?: number; close?: boolean } = {}) {
  const linked = linkedServer((server) =>
    server.setRequestHandler(CallToolRequestSchema, async (request) => (await handler(request.params.name)) as never),
  );
  const connection = await connectMcpServer({
    definition: testDefinition(),
    logger: silentLogger(),
    openTransport: linked.openTransport,
  });
  if (options.close) await linked.server.close();
  try {
    const result = await callServerTool({
      client: connection.client,
      serverId: 'mem',
      toolName: options.toolName ?? 'tool',
      input: {},
      timeoutMs: options.timeoutMs ?? 5_000,
      secretValues: ['the-secret-value'],
    });
    return { result };
  } catch (error) {
    return { error };
  } finally {
    await connection.close();
  }
}

const codeOf = (error: unknown) => (AgentqError.isInstance(error) ? error.code : undefined);
const broken = (error: unknown) => McpConnectError.isInstance(error) && error.connectionBroken;

describe('callServerTool', () => {
  it('returns content, and a tool failure as an isError result rather than a throw', async () => {
    const ok = await call(async () => ({ content: [{ type: 'text', text: 'hi' }] }));
    expect(ok.result).toEqual({
      content: [{ type: 'text', text: 'hi' }],
      isError: undefined,
      structuredContent: undefined,
    });
    const failed = await call(async () => ({ content: [{ type: 'text', text: 'nope' }], isError: true }));
    expect(failed.result?.isError).toBe(true);
  });

  it('fails with MCP_CALL_TIMEOUT and marks the connection broken', async () => {
    const { error } = await call(() => new Promise(() => undefined), { timeoutMs: 200 });
    expect(codeOf(error)).toBe('MCP_CALL_TIMEOUT');
    expect(broken(error)).toBe(true);
  });

  it('fails with MCP_CALL_FAILED on a JSON-RPC error, masked, with the connection kept', async () => {
    const { error } = await call(async () => {
      throw new McpError(ErrorCode.InvalidParams, 'bad key the-secret-value');
    });
    expect(codeOf(error)).toBe('MCP_CALL_FAILED');
    expect(broken(error)).toBe(false);
    expect((error as Error).message).toContain(SECRET_MASK);
    expect((error as Error).message).not.toContain('the-secret-value');
    expect((error as Error).cause).toBeUndefined();
  });

  it('fails with MCP_TRANSPORT_CLOSED when the server is gone', async () => {
    const { error } = await call(async () => ({ content: [] }), { close: true });
    expect(codeOf(error)).toBe('MCP_TRANSPORT_CLOSED');
    expect(broken(error)).toBe(true);
  });
});
