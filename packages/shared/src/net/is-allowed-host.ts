// Fixed shapes, never built from input: a DNS name (letters, digits, '-', '.'), optionally behind
// `*.`, or a bracketed IPv6 literal.
const namePattern = /^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/;
const ipv6LiteralPattern = /^\[[0-9a-f:.]+\]$/;

function stripTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/**
 * Normalizes one entry of a host allow-list (`AGENTQ_FETCH_ALLOW_HOSTS`): an exact host name, an
 * IP literal (IPv6 in brackets), or `*.suffix` for every name below `suffix` (not `suffix`
 * itself). Lower-cased, without a trailing dot, IP literals in the URL parser's canonical form, so
 * it compares equal to `new URL(...).hostname`. Returns undefined for anything else, including a
 * bare `*` (that is `AGENTQ_ALLOW_PRIVATE_FETCH=true`), ports, paths and user info.
 */
export function normalizeHostPattern(entry: string): string | undefined {
  const text = stripTrailingDot(entry.trim().toLowerCase());
  if (text.length === 0 || text.length > 253) return undefined;
  if (!namePattern.test(text) && !ipv6LiteralPattern.test(text)) return undefined;
  if (text.startsWith('*.')) return text;
  try {
    // Canonical form, so `[::FFFF:127.0.0.1]` and `[::ffff:7f00:1]` are one entry.
    return stripTrailingDot(new URL(`http://${text}/`).hostname);
  } catch {
    return undefined;
  }
}

/**
 * Whether `hostname` (as `URL.hostname` gives it) is named by one of `patterns` (normalized by
 * {@link normalizeHostPattern}). Exact entries match the host only; `*.example.com` matches
 * `a.example.com` and `a.b.example.com` but not `example.com` nor `badexample.com`. Plain string
 * comparison: linear in the lengths, whatever the input.
 */
export function isAllowedHost(hostname: string, patterns: readonly string[]): boolean {
  const host = stripTrailingDot(hostname.toLowerCase());
  for (const pattern of patterns) {
    if (pattern.startsWith('*.')) {
      // pattern.slice(1) keeps the dot: '.example.com'.
      if (host.length > pattern.length - 1 && host.endsWith(pattern.slice(1))) return true;
    } else if (host === pattern) {
      return true;
    }
  }
  return false;
}
