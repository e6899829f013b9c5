// Fixed shapes, never built from input: a DNS name (letters, digits, '-', '.'), optionally behind
// `*.`, or a bracketed IPv6 literal.
const namePattern = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/;
const ipv6LiteralPattern = /^\[[0-9a-f:.]+\]$/;
const portPattern = /^[0-9]{1,5}$/;

function stripTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** Splits `host:port` (`[v6]:port` too) at its last colon; a host without a port has none. */
function splitPort(text: string): { host: string; port?: string } {
  const at = text.lastIndexOf(':');
  // A colon inside brackets belongs to an IPv6 literal; a bare IPv6 has several and is refused.
  if (at < 0 || text.endsWith(']')) return { host: text };
  return { host: text.slice(0, at), port: text.slice(at + 1) };
}

/**
 * Normalizes one entry of a host allow-list (`AGENTQ_FETCH_ALLOW_HOSTS`,
 * `AGENTQ_WEB_FETCH_ALLOW_HOSTS`): an exact host name, an IP literal (IPv6 in brackets), or
 * `*.suffix` for every name below `suffix` (not `suffix` itself), each optionally followed by
 * `:port`. Without a port an entry allows every port of the host (as before ports were accepted);
 * with one, only that port. Lower-cased, without a trailing dot, IP literals in the URL parser's
 * canonical form, ports without leading zeros, so it compares equal to `new URL(...).hostname`.
 * Returns undefined for anything else, including a bare `*` (that is
 * `AGENTQ_ALLOW_PRIVATE_FETCH=true`), port 0 or above 65535, paths and user info.
 */
export function normalizeHostPattern(entry: string): string | undefined {
  const { host: rawHost, port } = splitPort(entry.trim().toLowerCase());
  const text = stripTrailingDot(rawHost);
  if (text.length === 0 || text.length > 253) return undefined;
  if (!namePattern.test(text) && !ipv6LiteralPattern.test(text)) return undefined;
  let portSuffix = '';
  if (port !== undefined) {
    const number = portPattern.test(port) ? Number(port) : Number.NaN;
    if (!(number >= 1 && number <= 65_535)) return undefined;
    portSuffix = `:${number}`;
  }
  if (text.startsWith('*.')) return `${text}${portSuffix}`;
  try {
    // Canonical form, so `[::FFFF:127.0.0.1]` and `[::ffff:7f00:1]` are one entry.
    return `${stripTrailingDot(new URL(`http://${text}/`).hostname)}${portSuffix}`;
  } catch {
    return undefined;
  }
}

/** The port a URL connects to: its own, or its scheme's default. */
export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

/**
 * The allow-list entry that names exactly the host and port of `url` (`127.0.0.1:8888`), for a
 * service the operator configured by URL (a search provider, an embedding server): it is allowed
 * where it is, and only there.
 */
export function hostPatternOf(url: string | URL): string {
  const parsed = new URL(url);
  return `${stripTrailingDot(parsed.hostname.toLowerCase())}:${effectivePort(parsed)}`;
}

/**
 * Whether `hostname` (as `URL.hostname` gives it) on `port` is named by one of `patterns`
 * (normalized by {@link normalizeHostPattern}). Exact entries match the host only; `*.example.com`
 * matches `a.example.com` and `a.b.example.com` but not `example.com` nor `badexample.com`. An
 * entry with a port matches that port only, and never when `port` is not given; one without a port
 * matches every port. Plain string comparison: linear in the lengths, whatever the input.
 */
export function isAllowedHost(hostname: string, patterns: readonly string[], port?: number): boolean {
  const host = stripTrailingDot(hostname.toLowerCase());
  for (const entry of patterns) {
    const { host: pattern, port: patternPort } = splitPort(entry);
    if (patternPort !== undefined && Number(patternPort) !== port) continue;
    if (pattern.startsWith('*.')) {
      // pattern.slice(1) keeps the dot: '.example.com'.
      if (host.length > pattern.length - 1 && host.endsWith(pattern.slice(1))) return true;
    } else if (host === pattern) {
      return true;
    }
  }
  return false;
}
