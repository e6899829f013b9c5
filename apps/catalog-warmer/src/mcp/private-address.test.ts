import { NonRetryableError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { assertAllowedUrl, isPrivateAddress } from './private-address.js';

describe('isPrivateAddress', () => {
  it('flags loopback, private, link-local and mapped addresses', () => {
    for (const address of [
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
    ]) {
      expect(isPrivateAddress(address), address).toBe(true);
    }
  });

  it('lets public addresses through', () => {
    for (const address of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
      expect(isPrivateAddress(address), address).toBe(false);
    }
  });
});

describe('assertAllowedUrl', () => {
  it('refuses loopback URLs unless private networks are allowed', async () => {
    await expect(
      assertAllowedUrl({ url: 'http://127.0.0.1:9/mcp', serverId: 's', allowPrivateNetwork: false }),
    ).rejects.toSatisfy(
      (error) => NonRetryableError.isInstance(error) && (error as NonRetryableError).code === 'PRIVATE_ADDRESS',
    );
    await expect(
      assertAllowedUrl({ url: 'http://localhost:9/mcp', serverId: 's', allowPrivateNetwork: false }),
    ).rejects.toThrow();
    await expect(
      assertAllowedUrl({ url: 'http://[::1]:9/mcp', serverId: 's', allowPrivateNetwork: false }),
    ).rejects.toThrow();
    await expect(
      assertAllowedUrl({ url: 'http://127.0.0.1:9/mcp', serverId: 's', allowPrivateNetwork: true }),
    ).resolves.toBeUndefined();
  });
});
