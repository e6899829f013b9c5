import { describe, expect, it } from 'vitest';
import { AgentqError } from '../errors/agentq-error.js';
import { checkFetchTarget, isPrivateAddress } from './check-fetch-target.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return AgentqError.isInstance(error) ? error.code : 'not-an-agentq-error';
  }
}

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:127.0.0.1',
  ])('treats %s as private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.4.4'])(
    'treats %s as public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('checkFetchTarget', () => {
  const publicLookup = async () => [{ address: '93.184.216.34' }];

  it('accepts a public https URL', async () => {
    expect(await codeOf(checkFetchTarget('https://mcp.example.com/mcp', { lookup: publicLookup }))).toBeUndefined();
  });

  it('refuses loopback, private literals and localhost by default', async () => {
    const urls = [
      'http://127.0.0.1:8080/mcp',
      'http://[::1]/mcp',
      'http://10.0.0.5/',
      'http://localhost:3000/',
      'http://app.localhost/',
    ];
    for (const url of urls) {
      // The lookup would say "public": literals and localhost names must not depend on it.
      expect(await codeOf(checkFetchTarget(url, { lookup: publicLookup }))).toBe('PRIVATE_ADDRESS');
    }
  });

  it('refuses a name when any of its addresses is private', async () => {
    const lookup = async () => [{ address: '93.184.216.34' }, { address: '169.254.169.254' }];
    expect(await codeOf(checkFetchTarget('https://sneaky.example.com/', { lookup }))).toBe('PRIVATE_ADDRESS');
  });

  it('refuses non-http schemes even when private targets are allowed', async () => {
    expect(await codeOf(checkFetchTarget('file:///etc/passwd', { allowPrivate: true }))).toBe('INVALID_URL');
    expect(await codeOf(checkFetchTarget('not a url'))).toBe('INVALID_URL');
  });

  it('allows private targets when told to', async () => {
    expect(await codeOf(checkFetchTarget('http://127.0.0.1:8080/mcp', { allowPrivate: true }))).toBeUndefined();
  });
});
