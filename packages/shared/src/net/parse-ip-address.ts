/** An IP address in numeric form: IPv4 as one unsigned 32-bit number, IPv6 as eight 16-bit groups. */
export type ParsedIpAddress = { family: 4; value: number } | { family: 6; groups: number[] };

/**
 * Parses a dotted-quad IPv4 address (`a.b.c.d`, decimal, each part 0–255) into one unsigned
 * 32-bit number. The odd forms (`0x7f.1`, `2130706433`, `127.1`) are not accepted here: URL
 * hosts reach this code after the WHATWG URL parser has already turned them into a dotted quad,
 * and resolvers answer in dotted quads.
 */
export function parseIpv4(text: string): number | undefined {
  let value = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let index = 0; index <= text.length; index += 1) {
    const code = index < text.length ? text.charCodeAt(index) : 46; // a final '.' closes the last part
    if (code === 46) {
      if (digits === 0 || part > 255) return undefined;
      value = value * 256 + part;
      parts += 1;
      part = 0;
      digits = 0;
      continue;
    }
    if (code < 48 || code > 57 || digits === 3) return undefined;
    part = part * 10 + (code - 48);
    digits += 1;
  }
  return parts === 4 ? value : undefined;
}

function hexValue(code: number): number {
  if (code >= 48 && code <= 57) return code - 48;
  if (code >= 97 && code <= 102) return code - 87;
  if (code >= 65 && code <= 70) return code - 55;
  return -1;
}

/**
 * Parses one side of an IPv6 address (the text before or after `::`) into 16-bit groups. A
 * dotted quad is allowed only as the last piece of the address (`allowDottedTail`).
 */
function parseGroups(text: string, allowDottedTail: boolean): number[] | undefined {
  const groups: number[] = [];
  if (text === '') return groups;
  let start = 0;
  for (let index = 0; index <= text.length; index += 1) {
    if (index < text.length && text.charCodeAt(index) !== 58) continue; // 58 is ':'
    const piece = text.slice(start, index);
    start = index + 1;
    if (index === text.length && allowDottedTail && piece.includes('.')) {
      const ipv4 = parseIpv4(piece);
      if (ipv4 === undefined) return undefined;
      groups.push(Math.floor(ipv4 / 65536), ipv4 % 65536);
      return groups;
    }
    if (piece.length === 0 || piece.length > 4) return undefined;
    let group = 0;
    for (let offset = 0; offset < piece.length; offset += 1) {
      const digit = hexValue(piece.charCodeAt(offset));
      if (digit < 0) return undefined;
      group = group * 16 + digit;
    }
    groups.push(group);
  }
  return groups;
}

/**
 * Parses an IPv6 address into its eight 16-bit groups: `::` compression, a trailing dotted quad
 * (`::ffff:127.0.0.1`), surrounding brackets and a zone id (`fe80::1%eth0`) are understood. One
 * pass over the text, no regular expression: the text may come from a URL anyone can write.
 */
export function parseIpv6(text: string): number[] | undefined {
  let address = text;
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone >= 0) {
    // A zone id names a local interface; it is never part of the address itself.
    if (zone === address.length - 1) return undefined;
    address = address.slice(0, zone);
  }
  if (address.length === 0 || address.length > 45) return undefined;
  const compression = address.indexOf('::');
  if (compression < 0) {
    const groups = parseGroups(address, true);
    return groups?.length === 8 ? groups : undefined;
  }
  if (address.indexOf('::', compression + 1) >= 0) return undefined;
  const head = parseGroups(address.slice(0, compression), false);
  const tail = parseGroups(address.slice(compression + 2), true);
  if (!head || !tail || head.length + tail.length > 7) return undefined;
  const groups = [...head];
  while (groups.length + tail.length < 8) groups.push(0);
  return [...groups, ...tail];
}

/**
 * Parses an IPv4 or IPv6 address, as a URL host (brackets allowed) or as a resolver answers it.
 * Returns undefined for anything else, including host names.
 */
export function parseIpAddress(text: string): ParsedIpAddress | undefined {
  const ipv4 = parseIpv4(text);
  if (ipv4 !== undefined) return { family: 4, value: ipv4 };
  if (!text.includes(':')) return undefined;
  const groups = parseIpv6(text);
  return groups ? { family: 6, groups } : undefined;
}
