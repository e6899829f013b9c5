import { describe, expect, it } from 'vitest';
import { NonRetryableError } from '../errors/non-retryable-error.js';
import { serverDefinitionSchema } from '../schemas/server-definition.js';
import { resolveSecrets } from './resolve-secrets.js';

const stdio = serverDefinitionSchema.parse({
  id: 'fs',
  transport: {
    type: 'stdio',
    command: 'mcp-server-filesystem',
    args: ['--root', '${ROOT_DIR}', 'plain'],
    env: { TOKEN: '${FS_TOKEN}', MIXED: 'pre-${FS_TOKEN}-post' },
    cwd: '${ROOT_DIR}/work',
  },
});
const http = serverDefinitionSchema.parse({
  id: 'remote',
  transport: {
    type: 'streamable-http',
    url: 'https://mcp.example.com/${TENANT}/mcp',
    headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' },
  },
});

function resolveError(run: () => unknown): NonRetryableError {
  try {
    run();
  } catch (error) {
    if (NonRetryableError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected resolveSecrets to fail');
}

describe('resolveSecrets', () => {
  it('resolves args, env and cwd of a stdio server, and lists the values', () => {
    const { definition, secretValues } = resolveSecrets(stdio, { ROOT_DIR: '/data', FS_TOKEN: 'tok-123' });
    expect(definition.transport).toEqual({
      type: 'stdio',
      command: 'mcp-server-filesystem',
      args: ['--root', '/data', 'plain'],
      env: { TOKEN: 'tok-123', MIXED: 'pre-tok-123-post' },
      cwd: '/data/work',
    });
    expect(new Set(secretValues)).toEqual(new Set(['/data', 'tok-123']));
  });

  it('resolves the URL and headers of an HTTP server', () => {
    const { definition, secretValues } = resolveSecrets(http, { TENANT: 'acme', REMOTE_TOKEN: 'sekret' });
    expect(definition.transport).toEqual({
      type: 'streamable-http',
      url: 'https://mcp.example.com/acme/mcp',
      headers: { Authorization: 'Bearer sekret' },
    });
    expect(secretValues.sort()).toEqual(['acme', 'sekret']);
  });

  it('never mutates the stored definition', () => {
    const before = JSON.stringify(http);
    resolveSecrets(http, { TENANT: 'acme', REMOTE_TOKEN: 'sekret' });
    expect(JSON.stringify(http)).toBe(before);
  });

  it('fails with SECRET_MISSING naming the variable and the field', () => {
    const error = resolveError(() => resolveSecrets(http, { TENANT: 'acme' }));
    expect(error.code).toBe('SECRET_MISSING');
    expect(error.field).toBe('transport.headers.Authorization');
    expect(error.message).toContain('REMOTE_TOKEN');
    expect(error.message).toContain('remote');

    const empty = resolveError(() => resolveSecrets(stdio, { ROOT_DIR: '/data', FS_TOKEN: '' }));
    expect(empty.code).toBe('SECRET_MISSING');
    expect(empty.message).toContain('FS_TOKEN');
  });

  it('leaves text without placeholders alone and needs no env for it', () => {
    const plain = serverDefinitionSchema.parse({
      id: 'p',
      transport: { type: 'sse', url: 'http://127.0.0.1/sse', headers: { X: '$HOME' } },
    });
    expect(resolveSecrets(plain, {})).toEqual({ definition: plain, secretValues: [] });
  });
});
