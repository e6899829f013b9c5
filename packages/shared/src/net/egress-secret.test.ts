import { describe, expect, it } from 'vitest';
import { AgentqError } from '../errors/agentq-error.js';
import { assertSecretHosts, dropSecretHeaders } from './egress-secret.js';

const codeOf = (run: () => void): string | undefined => {
  try {
    run();
    return undefined;
  } catch (error) {
    return AgentqError.isInstance(error) ? error.code : String(error);
  }
};

describe('dropSecretHeaders', () => {
  it('drops every header whose value carries a secret, whatever its name, and keeps the rest', () => {
    const headers = new Headers({
      'x-subscription-token': 'k-1234567',
      authorization: 'Bearer k-1234567',
      'x-note': 'k-12345',
      accept: 'application/json',
    });
    dropSecretHeaders(headers, [{ value: ' k-1234567 ' }, { value: '' }]);
    expect([...headers.keys()].sort()).toEqual(['accept', 'x-note']);
  });
});

describe('assertSecretHosts', () => {
  const secrets = [{ value: 'bound-99', hosts: ['api.example.com', '*.corp.example'] }, { value: 'free-11' }];

  it('lets a bound secret go to its hosts, and an unbound one anywhere', () => {
    for (const url of ['https://api.example.com/x', 'https://a.corp.example/x']) {
      expect(
        codeOf(() => assertSecretHosts({ url: new URL(url), headers: new Headers({ k: 'bound-99' }), secrets })),
      ).toBe(undefined);
    }
    const free = new Headers({ k: 'free-11' });
    expect(
      codeOf(() => assertSecretHosts({ url: new URL('https://elsewhere.example/'), headers: free, secrets })),
    ).toBe(undefined);
  });

  it('refuses a bound secret in a header or the URL on another host, and names no value', () => {
    const elsewhere = new URL('https://evil.example/?k=bound-99');
    expect(codeOf(() => assertSecretHosts({ url: elsewhere, headers: new Headers(), secrets }))).toBe(
      'SECRET_HOST_MISMATCH',
    );
    const header = new Headers({ 'x-key': 'Token bound-99' });
    try {
      assertSecretHosts({ url: new URL('https://corp.example/'), headers: header, secrets });
      expect.unreachable();
    } catch (error) {
      expect(AgentqError.isInstance(error) && error.code).toBe('SECRET_HOST_MISMATCH');
      expect(String((error as Error).message)).not.toContain('bound-99');
    }
  });
});
