import { parseIpAddress } from './parse-ip-address.js';

type Ipv4Range = readonly [network: number, prefix: number];
type Ipv6Range = readonly [groups: readonly number[], prefix: number];

function ipv4(a: number, b: number, c: number, d: number): number {
  return ((a * 256 + b) * 256 + c) * 256 + d;
}

// Every IPv4 range that is not a public internet host (RFC 6890 and its updates): loopback,
// private, link-local (cloud metadata lives at 169.254.169.254), carrier-grade NAT, IETF protocol
// assignments, the documentation and benchmark networks, the deprecated 6to4 relay anycast,
// multicast, reserved and broadcast.
const blockedIpv4: readonly Ipv4Range[] = [
  [ipv4(0, 0, 0, 0), 8],
  [ipv4(10, 0, 0, 0), 8],
  [ipv4(100, 64, 0, 0), 10],
  [ipv4(127, 0, 0, 0), 8],
  [ipv4(169, 254, 0, 0), 16],
  [ipv4(172, 16, 0, 0), 12],
  [ipv4(192, 0, 0, 0), 24],
  [ipv4(192, 0, 2, 0), 24],
  [ipv4(192, 88, 99, 0), 24],
  [ipv4(192, 168, 0, 0), 16],
  [ipv4(198, 18, 0, 0), 15],
  [ipv4(198, 51, 100, 0), 24],
  [ipv4(203, 0, 113, 0), 24],
  [ipv4(224, 0, 0, 0), 4],
  [ipv4(240, 0, 0, 0), 4],
];

// IPv6 ranges refused outright. Ranges that carry an IPv4 address (mapped, NAT64, 6to4, Teredo)
// are not here: they are judged by the IPv4 address they lead to, in `embeddedIpv4Addresses`.
const blockedIpv6: readonly Ipv6Range[] = [
  [[0, 0, 0, 0, 0, 0], 96], // IPv4-compatible (deprecated), with `::` and `::1`: nothing public lives here
  [[0x0064, 0xff9b, 0x0001], 48], // local-use NAT64 (RFC 8215): translates into a private network
  [[0x0100], 64], // discard-only
  [[0x2001, 0x0002, 0x0000], 48], // benchmarking
  [[0x2001, 0x0010], 28], // ORCHID
  [[0x2001, 0x0020], 28], // ORCHIDv2
  [[0x2001, 0x0db8], 32], // documentation
  [[0x3fff], 20], // documentation (RFC 9637)
  [[0x5f00], 16], // SRv6 segment identifiers
  [[0xfc00], 7], // unique-local
  [[0xfe80], 10], // link-local
  [[0xfec0], 10], // site-local (deprecated, still routed inside some networks)
  [[0xff00], 8], // multicast
];

function inIpv4Range(value: number, [network, prefix]: Ipv4Range): boolean {
  const size = 2 ** (32 - prefix);
  return Math.floor(value / size) === Math.floor(network / size);
}

function inIpv6Range(groups: readonly number[], [network, prefix]: Ipv6Range): boolean {
  let bits = prefix;
  for (let index = 0; bits > 0; index += 1) {
    const take = Math.min(16, bits);
    const size = 2 ** (16 - take);
    if (Math.floor((groups[index] ?? 0) / size) !== Math.floor((network[index] ?? 0) / size)) return false;
    bits -= take;
  }
  return true;
}

function allZero(groups: readonly number[], from: number, to: number): boolean {
  for (let index = from; index < to; index += 1) if (groups[index] !== 0) return false;
  return true;
}

function joinGroups(high: number, low: number): number {
  return high * 65536 + low;
}

/**
 * The IPv4 addresses an IPv6 address leads to, for the forms that carry one: IPv4-mapped
 * `::ffff:a.b.c.d`, the SIIT translated form `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16` (bits 16–48) and Teredo `2001::/32` (server in bits 32–64,
 * client in the last 32 bits, inverted). Each of them reaches that IPv4 host, so each must pass the
 * IPv4 check.
 */
export function embeddedIpv4Addresses(groups: readonly number[]): number[] {
  const [g0 = 0, g1 = 0, g2 = 0, g3 = 0, g4 = 0, g5 = 0, g6 = 0, g7 = 0] = groups;
  // Compatible addresses are refused as a whole by `blockedIpv6`; they are still reported here so
  // the function answers for every form it names.
  const last32 = joinGroups(g6, g7);
  if (allZero(groups, 0, 5) && (g5 === 0xffff || g5 === 0)) return [last32]; // mapped, compatible
  if (allZero(groups, 0, 4) && g4 === 0xffff && g5 === 0) return [last32]; // translated
  if (g0 === 0x0064 && g1 === 0xff9b && allZero(groups, 2, 6)) return [last32]; // NAT64
  if (g0 === 0x2002) return [joinGroups(g1, g2)]; // 6to4
  if (g0 === 0x2001 && g1 === 0x0000) {
    // Teredo: the client address is stored inverted so NATs do not rewrite it.
    return [joinGroups(g2, g3), joinGroups(g6 ^ 0xffff, g7 ^ 0xffff)];
  }
  return [];
}

function isBlockedIpv4(value: number): boolean {
  return blockedIpv4.some((range) => inIpv4Range(value, range));
}

/**
 * Whether an IP address is anything but a public internet host: loopback, unspecified, private,
 * unique-local, link-local, site-local, carrier-grade NAT, multicast, reserved, broadcast, or a
 * documentation or benchmark range. An IPv6 address that embeds an IPv4 address (mapped, translated,
 * NAT64, 6to4, Teredo) is private when that IPv4 address is; the deprecated IPv4-compatible range
 * `::/96` and local-use NAT64 `64:ff9b:1::/48` are refused whole. A text that is not an IP address
 * at all counts as private: there is nothing to prove it public.
 */
export function isPrivateAddress(address: string): boolean {
  const parsed = parseIpAddress(address);
  if (!parsed) return true;
  if (parsed.family === 4) return isBlockedIpv4(parsed.value);
  const { groups } = parsed;
  if (blockedIpv6.some((range) => inIpv6Range(groups, range))) return true;
  return embeddedIpv4Addresses(groups).some(isBlockedIpv4);
}
