/**
 * Splits a Redis URL into a standard URL (credentials, TLS, database) and its nodes. A
 * `redis+cluster://` or `rediss+cluster://` URL lists several `host:port` nodes separated by
 * commas and always means a cluster. Credentials end at the last `@` before the host, as in any
 * URL, so a password may hold an `@`.
 */
export function parseRedisUrl(text: string): {
  url: URL;
  cluster: boolean;
  nodes: Array<{ host: string; port: number }>;
} {
  const match = /^(rediss?)\+cluster:\/\/(?:([^/?#]*)@)?([^/?#@]*)(.*)$/.exec(text);
  if (!match) {
    const url = new URL(text);
    return { url, cluster: false, nodes: [{ host: url.hostname, port: Number(url.port || 6379) }] };
  }
  const [, scheme, credentials, hostList = '', rest = ''] = match;
  const nodes = hostList
    .split(',')
    .filter((entry) => entry.trim() !== '')
    .map((entry) => {
      const url = new URL(`redis://${entry.trim()}`);
      return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) };
    });
  const first = hostList.split(',')[0]?.trim() || '127.0.0.1:6379';
  const url = new URL(`${scheme}://${credentials ? `${credentials}@` : ''}${first}${rest}`);
  return { url, cluster: true, nodes };
}

/**
 * A Redis URL fit to print: the password the connection would use replaced by `***`, the user name
 * kept. The credentials are found the way {@link parseRedisUrl} finds them (up to the last `@`
 * before the host); a URL it cannot parse has everything between `//` and its last `@` masked.
 */
export function maskRedisUrl(text: string): string {
  const start = text.indexOf('//');
  if (start === -1) return text;
  const authorityEnd = text.slice(start + 2).search(/[/?#]/);
  const authority = authorityEnd === -1 ? text.slice(start + 2) : text.slice(start + 2, start + 2 + authorityEnd);
  const at = authority.lastIndexOf('@');
  let username: string;
  try {
    const { url } = parseRedisUrl(text);
    if (at === -1) return text;
    if (!url.password) return text;
    username = url.username;
  } catch {
    const lastAt = text.lastIndexOf('@');
    return lastAt > start ? `${text.slice(0, start + 2)}***${text.slice(lastAt)}` : text;
  }
  return `${text.slice(0, start + 2)}${username}:***${text.slice(start + 2 + at)}`;
}
