import { AgentqError, silentLogger, type ServerDefinition } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { linkedServer, testDefinition } from '../test-support/linked-server.js';
import { prepareServerConnection } from './prepare-server-connection.js';

const secret = 'tok-5f1e9c2a7b';
const env = { AGENTQ_SECRET_TOKEN: secret };
const definition = testDefinition({
  transport: { type: 'stdio', command: 'unused', args: ['--token', '${AGENTQ_SECRET_TOKEN}'] },
});

const codeOf = (error: unknown) => (AgentqError.isInstance(error) ? error.code : undefined);

describe('prepareServerConnection', () => {
  it('resolves the secrets, tells their values before connecting, and connects with them', async () => {
    const events: string[] = [];
    const opened: ServerDefinition[] = [];
    const { openTransport } = linkedServer(() => undefined);
    const prepared = prepareServerConnection({
      definition,
      env,
      onSecretValues: (values) => events.push(`secrets:${values.join(',')}`),
    });
    expect(prepared.secretValues).toEqual([secret]);
    const connection = await prepared.connect({
      logger: silentLogger(),
      openTransport: (resolved) => {
        events.push('connect');
        opened.push(resolved);
        return openTransport();
      },
    });
    try {
      expect(events).toEqual([`secrets:${secret}`, 'connect']);
      expect(opened[0]?.transport).toMatchObject({ type: 'stdio', args: ['--token', secret] });
      expect(connection.capabilities?.tools).toBeDefined();
    } finally {
      await connection.close();
    }
  });

  it('masks the secret values out of a failed connect', async () => {
    const prepared = prepareServerConnection({ definition, env });
    const error = await prepared
      .connect({
        logger: silentLogger(),
        openTransport: (resolved) => {
          throw new Error(
            `could not start ${resolved.transport.type === 'stdio' ? resolved.transport.args.join(' ') : ''}`,
          );
        },
      })
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(codeOf(error)).toBe('MCP_CONNECT_FAILED');
    expect((error as Error).message).toContain('could not start');
    expect((error as Error).message).not.toContain(secret);
  });

  it('refuses a missing secret before anything is told or opened', () => {
    const told: string[][] = [];
    let error: unknown;
    try {
      prepareServerConnection({ definition, env: {}, onSecretValues: (values) => told.push(values) });
    } catch (caught) {
      error = caught;
    }
    expect(codeOf(error)).toBe('SECRET_MISSING');
    expect(told).toEqual([]);
  });

  it("refuses a secret outside this process's allow-list", () => {
    const forbidden = testDefinition({ transport: { type: 'stdio', command: 'unused', args: ['${REDIS_URL}'] } });
    expect(() => prepareServerConnection({ definition: forbidden, env: { REDIS_URL: 'redis://x' } })).toThrow(
      expect.objectContaining({ code: 'VALIDATION' }),
    );
  });
});
