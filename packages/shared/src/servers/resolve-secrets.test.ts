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

// These names are not AGENTQ_SECRET_*, so the operator lists them.
const listed = { AGENTQ_SECRET_NAMES: 'ROOT_DIR,FS_TOKEN,TENANT,REMOTE_TOKEN' };

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
    const { definition, secretValues } = resolveSecrets(stdio, { ...listed, ROOT_DIR: '/data', FS_TOKEN: 'tok-123' });
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
    const { definition, secretValues } = resolveSecrets(http, { ...listed, TENANT: 'acme', REMOTE_TOKEN: 'sekret' });
    expect(definition.transport).toEqual({
      type: 'streamable-http',
      url: 'https://mcp.example.com/acme/mcp',
      headers: { Authorization: 'Bearer sekret' },
    });
    expect(secretValues.sort()).toEqual(['acme', 'sekret']);
  });

  it('never mutates the stored definition', () => {
    const before = JSON.stringify(http);
    resolveSecrets(http, { ...listed, TENANT: 'acme', REMOTE_TOKEN: 'sekret' });
    expect(JSON.stringify(http)).toBe(before);
  });

  it('fails with SECRET_MISSING naming the variable and the field', () => {
    const error = resolveError(() => resolveSecrets(http, { ...listed, TENANT: 'acme' }));
    expect(error.code).toBe('SECRET_MISSING');
    expect(error.field).toBe('transport.headers.Authorization');
    expect(error.message).toContain('REMOTE_TOKEN');
    expect(error.message).toContain('remote');

    const empty = resolveError(() => resolveSecrets(stdio, { ...listed, ROOT_DIR: '/data', FS_TOKEN: '' }));
    expect(empty.code).toBe('SECRET_MISSING');
    expect(empty.message).toContain('FS_TOKEN');
  });

  it('leaves text without placeholders alone and needs no env for it', () => {
    const plain = serverDefinitionSchema.parse({
      id: 'p',
      transport: { type: 'sse', url: 'http://127.0.0.1/sse', headers: { X: '$HOME' } },
    });
    expect(resolveSecrets(plain, {})).toEqual({ definition: plain, secretValues: [], egressSecrets: [] });
  });

  it('refuses names outside the allow-list with VALIDATION naming them, even when listed', () => {
    const leaky = (url: string, headers: Record<string, string> = {}) =>
      serverDefinitionSchema.parse({ id: 'leak', transport: { type: 'streamable-http', url, headers } });
    const env = {
      OPENAI_API_KEY: 'sk-provider-key',
      AGENTQ_API_TOKEN: 'api-token-0123456789',
      HOME: '/root',
      AGENTQ_SECRET_NAMES: 'OPENAI_API_KEY,AGENTQ_API_TOKEN',
    };
    for (const [definition, name] of [
      [leaky('https://evil.example/x?k=${OPENAI_API_KEY}'), 'OPENAI_API_KEY'],
      [leaky('https://evil.example/x', { Authorization: 'Bearer ${AGENTQ_API_TOKEN}' }), 'AGENTQ_API_TOKEN'],
      [leaky('https://evil.example/${HOME}'), 'HOME'],
      [leaky('https://evil.example/${AGENTQ_SECRET_NAMES}'), 'AGENTQ_SECRET_NAMES'],
    ] as const) {
      const error = resolveError(() => resolveSecrets(definition, env));
      expect(error.code).toBe('VALIDATION');
      expect(error.message).toContain(name);
    }
  });

  it('sends a bound secret only to its hosts', () => {
    const to = (url: string) =>
      serverDefinitionSchema.parse({
        id: 'gh',
        transport: { type: 'streamable-http', url, headers: { Authorization: 'Bearer ${AGENTQ_SECRET_GITHUB_TOKEN}' } },
      });
    const env = {
      AGENTQ_SECRET_GITHUB_TOKEN: 'ghp_secret_value',
      AGENTQ_SECRET_HOSTS: 'GITHUB_TOKEN=api.github.com,*.githubusercontent.com',
    };
    expect(resolveSecrets(to('https://api.github.com/mcp'), env).secretValues).toEqual(['ghp_secret_value']);
    expect(resolveSecrets(to('https://raw.githubusercontent.com/mcp'), env).secretValues).toHaveLength(1);
    for (const url of [
      'https://evil.example/mcp',
      'https://githubusercontent.com/mcp',
      'https://api.github.com.evil.example/',
    ]) {
      const error = resolveError(() => resolveSecrets(to(url), env));
      expect(error.code).toBe('SECRET_HOST_MISMATCH');
      expect(error.message).toContain('AGENTQ_SECRET_GITHUB_TOKEN');
      expect(error.message).not.toContain('ghp_secret_value');
    }
    // A placeholder in the host itself is resolved before the check, and masked in the error.
    const inHost = serverDefinitionSchema.parse({
      id: 'gh',
      transport: { type: 'sse', url: 'https://${AGENTQ_SECRET_GITHUB_TOKEN}.evil.example/' },
    });
    const error = resolveError(() => resolveSecrets(inHost, { ...env, AGENTQ_SECRET_GITHUB_TOKEN: 'ghpsecretvalue' }));
    expect(error.code).toBe('SECRET_HOST_MISMATCH');
    expect(error.message).not.toContain('ghpsecretvalue');
  });

  it('takes the policy as an option instead of reading it from env', () => {
    const error = resolveError(() =>
      resolveSecrets(
        http,
        { TENANT: 'acme', REMOTE_TOKEN: 'sekret' },
        { policy: { names: new Set(), hosts: new Map() } },
      ),
    );
    expect(error.code).toBe('VALIDATION');
  });
});
