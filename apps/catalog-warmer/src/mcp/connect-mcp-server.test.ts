import { AgentqError, serverDefinitionSchema, silentLogger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { connectMcpServer } from './connect-mcp-server.js';

const httpDefinition = (url: string) =>
  serverDefinitionSchema.parse({ id: 'internal', transport: { type: 'streamable-http', url } });

describe('connectMcpServer address guard', () => {
  it('refuses an HTTP server on a loopback or metadata address before connecting', async () => {
    for (const url of ['http://127.0.0.1:9/mcp', 'http://169.254.169.254/latest', 'http://localhost:9/mcp']) {
      const error = await connectMcpServer({ definition: httpDefinition(url), logger: silentLogger() }).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(AgentqError.isInstance(error) && error.code).toBe('PRIVATE_ADDRESS');
    }
  });

  it('lets a private address through when allowed (and then fails to connect, not to check)', async () => {
    const error = await connectMcpServer({
      definition: httpDefinition('http://127.0.0.1:9/mcp'),
      logger: silentLogger(),
      allowPrivateNetwork: true,
    }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(AgentqError.isInstance(error) && error.code).not.toBe('PRIVATE_ADDRESS');
  });
});
