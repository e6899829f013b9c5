import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { NonRetryableError } from '@agentq/shared';

const privateV4: Array<[number, number]> = [
  [0x00000000, 8], // "this" network
  [0x0a000000, 8], // 10/8
  [0x64400000, 10], // 100.64/10 carrier-grade NAT
  [0x7f000000, 8], // loopback
  [0xa9fe0000, 16], // link-local, cloud metadata
  [0xac100000, 12], // 172.16/12
  [0xc0a80000, 16], // 192.168/16
];

function v4ToNumber(address: string): number {
  return address.split('.').reduce((total, part) => total * 256 + Number(part), 0);
}

/** Whether `address` (an IP literal) is loopback, private, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) {
    const value = v4ToNumber(address);
    return privateV4.some(([base, bits]) => value >>> (32 - bits) === base >>> (32 - bits));
  }
  if (family === 6) {
    const lower = address.toLowerCase();
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped?.[1]) return isPrivateAddress(mapped[1]);
    return lower === '::' || lower === '::1' || /^f[cd]/.test(lower) || /^fe[89ab]/.test(lower);
  }
  return false;
}

/**
 * Refuses an HTTP MCP URL whose host is or resolves to a private or loopback address, unless
 * `allowPrivateNetwork` (config `AGENTQ_ALLOW_PRIVATE_FETCH`). Server definitions come from
 * operators and the API, so without this a definition could make warmers probe the internal
 * network. The check runs at connect time; it does not pin the resolved address, so it is a
 * guard against mistakes and casual misuse rather than against DNS rebinding.
 */
export async function assertAllowedUrl(options: {
  url: string;
  serverId: string;
  allowPrivateNetwork: boolean;
}): Promise<void> {
  if (options.allowPrivateNetwork) return;
  const host = new URL(options.url).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [host]
    : host === 'localhost' || host.endsWith('.localhost')
      ? ['127.0.0.1']
      : (await lookup(host, { all: true })).map((entry) => entry.address);
  if (addresses.some(isPrivateAddress)) {
    throw new NonRetryableError({
      code: 'PRIVATE_ADDRESS',
      field: 'transport.url',
      message: `MCP server ${options.serverId}: ${host} is a private or loopback address; set AGENTQ_ALLOW_PRIVATE_FETCH=true to allow it`,
    });
  }
}
