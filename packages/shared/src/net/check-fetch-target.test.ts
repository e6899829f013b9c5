import { describe, expect, it } from 'vitest';
import { AgentqError } from '../errors/agentq-error.js';
import { checkFetchTarget } from './check-fetch-target.js';

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return AgentqError.isInstance(error) ? error.code : 'not-an-agentq-error';
  }
}

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

  it.each([
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://2130706433/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://0251.0376.0251.0376/', '169.254.169.254'],
    ['http://[::FFFF:127.0.0.1]/', '[::ffff:7f00:1]'],
  ])('relies on the URL parser turning %s into %s', (url, hostname) => {
    // The address check only ever sees the canonical form; this pins that assumption.
    expect(new URL(url).hostname).toBe(hostname);
  });

  it.each([
    'http://0x7f.1/',
    'http://2130706433/',
    'http://017700000001/',
    'http://127.1/',
    'http://0251.0376.0251.0376/latest/meta-data/',
    'http://[::127.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[::ffff:0:7f00:1]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[2002:7f00:1::]/',
    'http://[2001:0:808:808::80ff:fffe]/',
    'http://[fec0::1]/',
    'http://[fd00::1]/',
    'http://[ff02::1]/',
    'http://[::]/',
    'http://0.0.0.0/',
    'http://192.0.2.1/',
    'http://198.51.100.1/',
    'http://203.0.113.1/',
    'http://198.18.0.1/',
    'http://240.0.0.1/',
    'http://255.255.255.255/',
    'http://[2001:db8::1]/',
    'http://[3fff::1]/',
    'http://localhost./',
  ])('refuses the literal %s without asking the resolver', async (url) => {
    expect(await codeOf(checkFetchTarget(url, { lookup: publicLookup }))).toBe('PRIVATE_ADDRESS');
  });

  it.each([
    'http://8.8.8.8/',
    'http://[2606:4700::1111]/',
    'http://[::ffff:8.8.8.8]/',
    'http://[64:ff9b::808:808]/',
    'http://[2002:0808:0808::]/',
  ])('accepts the public literal %s', async (url) => {
    expect(await codeOf(checkFetchTarget(url))).toBeUndefined();
  });

  it('refuses a zone id in a URL as invalid (the URL standard has none)', async () => {
    expect(await codeOf(checkFetchTarget('http://[fe80::1%25eth0]/', { lookup: publicLookup }))).toBe('INVALID_URL');
  });

  it('refuses a resolver answer that is not an address', async () => {
    const lookup = async () => [{ address: 'garbage' }];
    expect(await codeOf(checkFetchTarget('https://odd.example.com/', { lookup }))).toBe('PRIVATE_ADDRESS');
  });

  it('lets exactly the hosts in allowHosts reach private addresses', async () => {
    const lookup = async () => [{ address: '10.0.0.7' }];
    const allowHosts = ['mcp.internal', '*.corp.example'];
    for (const url of ['http://mcp.internal:8080/mcp', 'https://a.corp.example/', 'http://MCP.INTERNAL./']) {
      expect(await codeOf(checkFetchTarget(url, { lookup, allowHosts }))).toBeUndefined();
    }
    for (const url of [
      'http://other.internal/',
      'http://x.mcp.internal/',
      'https://corp.example/',
      'http://10.0.0.7/',
    ]) {
      expect(await codeOf(checkFetchTarget(url, { lookup, allowHosts }))).toBe('PRIVATE_ADDRESS');
    }
  });

  it('keeps user info, path and query out of the error message', async () => {
    try {
      await checkFetchTarget('http://user:hunter2@127.0.0.1/p/s3cret-path?token=s3cret-query');
      expect.unreachable();
    } catch (error) {
      expect(AgentqError.isInstance(error) && error.code).toBe('PRIVATE_ADDRESS');
      const message = (error as Error).message;
      expect(message).not.toContain('hunter2');
      expect(message).not.toContain('s3cret');
    }
  });

  it('allows private targets when told to', async () => {
    expect(await codeOf(checkFetchTarget('http://127.0.0.1:8080/mcp', { allowPrivate: true }))).toBeUndefined();
  });
});
