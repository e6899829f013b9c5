import { describe, expect, it } from 'vitest';
import { AgentqError } from '../errors/agentq-error.js';
import { resolveSecretSetting } from './resolve-secrets.js';

const base = {
  value: '${AGENTQ_SECRET_SEARCH_KEY}',
  setting: 'AGENTQ_BRAVE_API_KEY',
  subject: 'web_search provider brave',
  host: 'api.search.brave.com',
};

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    if (AgentqError.isInstance(error)) return error.code;
    throw error;
  }
  return undefined;
}

describe('resolveSecretSetting', () => {
  it('resolves an AGENTQ_SECRET_* placeholder and lists the value for masking', () => {
    expect(resolveSecretSetting({ ...base, env: { AGENTQ_SECRET_SEARCH_KEY: 'k-123' } })).toEqual({
      value: 'k-123',
      secretValues: ['k-123'],
      egressSecrets: [{ value: 'k-123' }],
    });
  });

  it('refuses a missing variable and a name outside the secret allow-list', () => {
    expect(codeOf(() => resolveSecretSetting({ ...base, env: {} }))).toBe('SECRET_MISSING');
    expect(
      codeOf(() => resolveSecretSetting({ ...base, value: '${OPENAI_API_KEY}', env: { OPENAI_API_KEY: 'x' } })),
    ).toBe('VALIDATION');
    expect(codeOf(() => resolveSecretSetting({ ...base, value: '${HOME}', env: { HOME: '/root' } }))).toBe(
      'VALIDATION',
    );
  });

  it('sends a host-bound secret only to its hosts', () => {
    const env = { AGENTQ_SECRET_SEARCH_KEY: 'k-123', AGENTQ_SECRET_HOSTS: 'SEARCH_KEY=*.brave.com' };
    expect(resolveSecretSetting({ ...base, env }).value).toBe('k-123');
    expect(codeOf(() => resolveSecretSetting({ ...base, host: 'evil.example', env }))).toBe('SECRET_HOST_MISMATCH');
  });
});
