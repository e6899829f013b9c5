import type { AddressInfo } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { oauthCallbackUrl } from './oauth-connect-routes.js';

/** A request that names a forged host, to an API bound at `address` (null: not listening). */
function forged(address: AddressInfo | null): FastifyRequest {
  return {
    host: 'evil.example',
    hostname: 'evil.example',
    protocol: 'https',
    headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' },
    server: { server: { address: () => address } },
  } as unknown as FastifyRequest;
}

const bound = (address: string, port: number): AddressInfo => ({
  address,
  port,
  family: address.includes(':') ? 'IPv6' : 'IPv4',
});

describe('oauthCallbackUrl', () => {
  it('is under AGENTQ_API_URL, else on the listen host and bound port, never on the Host header', () => {
    const configured = oauthCallbackUrl({ apiUrl: 'https://agentq.example.com' }, forged(bound('127.0.0.1', 3000)));
    expect(configured).toBe('https://agentq.example.com/admin/oauth/callback');
    const cases: Array<[string | undefined, AddressInfo, string]> = [
      ['127.0.0.1', bound('127.0.0.1', 41234), 'http://127.0.0.1:41234'],
      ['localhost', bound('127.0.0.1', 3000), 'http://localhost:3000'],
      ['0.0.0.0', bound('0.0.0.0', 3000), 'http://127.0.0.1:3000'],
      ['::', bound('::', 3000), 'http://127.0.0.1:3000'],
      [undefined, bound('::1', 3000), 'http://[::1]:3000'],
    ];
    for (const [listenHost, address, base] of cases) {
      const url = oauthCallbackUrl({ apiUrl: undefined, listenHost }, forged(address));
      expect(url).toBe(`${base}/admin/oauth/callback`);
    }
  });

  it('refuses, naming AGENTQ_API_URL, when the API has no address of its own', () => {
    expect(() => oauthCallbackUrl({ apiUrl: undefined, listenHost: '127.0.0.1' }, forged(null))).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('AGENTQ_API_URL') }),
    );
  });
});
