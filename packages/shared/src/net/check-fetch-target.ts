import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { NonRetryableError } from '../errors/non-retryable-error.js';

// Loopback, private, link-local (cloud metadata lives at 169.254.169.254), carrier-grade NAT,
// unspecified, multicast and reserved ranges: none of them is a public MCP server.
const privateRanges = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  privateRanges.addSubnet(network, prefix, 'ipv6');
}

/** Whether an IP address is loopback, private, link-local or otherwise not publicly routable. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return privateRanges.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return privateRanges.check(mapped[1], 'ipv4');
    return privateRanges.check(address, 'ipv6');
  }
  return false;
}

/** Options of {@link checkFetchTarget}. */
export interface CheckFetchTargetOptions {
  /** Allow loopback and private addresses (local development, tests). @default false */
  allowPrivate?: boolean;
  /** Name resolution, replaceable in tests. @default dns.promises.lookup with all addresses */
  lookup?: (hostname: string) => Promise<Array<{ address: string }>>;
  /** What is being reached, for the error message, e.g. `MCP server github`. */
  label?: string;
}

/**
 * Refuses an outgoing HTTP target that is not http(s) or that resolves to a private, loopback or
 * link-local address, unless `allowPrivate` is set. Every address a name resolves to is checked, so
 * a name with one public and one private record is refused. Throws `NonRetryableError` with code
 * `INVALID_URL` or `PRIVATE_ADDRESS` (field `transport.url`).
 *
 * The check runs when a connection is opened and does not pin the address it resolved, so it stops
 * mistakes and casual misuse, not a DNS-rebinding attacker.
 *
 * This guards server definitions that arrive over the API: without it, anyone allowed to add a
 * server could make warmers and workers probe the internal network or a cloud metadata endpoint.
 */
export async function checkFetchTarget(url: string, options: CheckFetchTargetOptions = {}): Promise<void> {
  const subject = options.label ?? 'Outgoing request';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NonRetryableError({
      code: 'INVALID_URL',
      field: 'transport.url',
      message: `${subject}: not a valid URL`,
    });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new NonRetryableError({
      code: 'INVALID_URL',
      field: 'transport.url',
      message: `${subject}: only http and https URLs are allowed, not ${parsed.protocol}`,
    });
  }
  if (options.allowPrivate) return;
  const hostname = parsed.hostname.replace(/^\[|\]$/g, '');
  const isLocalName = hostname === 'localhost' || hostname.endsWith('.localhost');
  const addresses = isIP(hostname)
    ? [{ address: hostname }]
    : isLocalName
      ? [{ address: '127.0.0.1' }]
      : await (options.lookup ?? ((name: string) => dnsLookup(name, { all: true })))(hostname);
  const blocked = addresses.find((entry) => isPrivateAddress(entry.address));
  if (blocked) {
    throw new NonRetryableError({
      code: 'PRIVATE_ADDRESS',
      field: 'transport.url',
      message: `${subject}: ${parsed.host} is a private or loopback address (${blocked.address}); set AGENTQ_ALLOW_PRIVATE_FETCH=true to allow it`,
    });
  }
}
