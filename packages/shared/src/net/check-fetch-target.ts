import { lookup as dnsLookup } from 'node:dns/promises';
import { NonRetryableError } from '../errors/non-retryable-error.js';
import { effectivePort, isAllowedHost } from './is-allowed-host.js';
import { isPrivateAddress } from './is-private-address.js';
import { parseIpAddress } from './parse-ip-address.js';

/** Name resolution as `dns.promises.lookup(name, { all: true })` answers it. */
export type FetchTargetLookup = (hostname: string) => Promise<Array<{ address: string; family?: number }>>;

/** Options of {@link checkFetchTarget}. */
export interface CheckFetchTargetOptions {
  /** Allow loopback and private addresses for every host (local development, tests). @default false */
  allowPrivate?: boolean;
  /**
   * Hosts that may resolve to private addresses, normalized by `normalizeHostPattern`: exact names,
   * IP literals, or `*.suffix` for every name below suffix, each on every port or, as `host:port`,
   * on that port only. `loadConfig` fills `fetchAllowHosts` from `AGENTQ_FETCH_ALLOW_HOSTS` (and
   * `webFetchAllowHosts` from `AGENTQ_WEB_FETCH_ALLOW_HOSTS`).
   * @default []
   */
  allowHosts?: readonly string[];
  /** The setting that fills `allowHosts`, named in a refusal. @default 'AGENTQ_FETCH_ALLOW_HOSTS' */
  allowHostsSetting?: string;
  /** Name resolution, replaceable in tests. @default dns.promises.lookup with all addresses */
  lookup?: FetchTargetLookup;
  /** What is being reached, for the error message, e.g. `MCP server github`. */
  label?: string;
}

/** A target that passed the check: the parsed URL and the addresses it was checked at. */
export interface CheckedFetchTarget {
  url: URL;
  /** The addresses checked, in resolver order; empty when the check was skipped (`allowPrivate`). */
  addresses: Array<{ address: string; family: 4 | 6 }>;
}

const defaultLookup: FetchTargetLookup = (hostname) => dnsLookup(hostname, { all: true });

function isLocalName(hostname: string): boolean {
  const name = hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
  return name === 'localhost' || name.endsWith('.localhost');
}

/** Parses and checks the scheme of a target URL; throws `INVALID_URL`. */
export function parseFetchUrl(url: string | URL, subject: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // The text is not echoed: it may hold a secret that failed to parse as a URL.
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
  return parsed;
}

/**
 * Resolves a target and checks every address it resolves to. With `resolve: 'always'` it also
 * resolves hosts that are exempt from the check (`allowPrivate`, `allowHosts`), because a caller
 * that pins the connection needs the address either way.
 */
export async function resolveFetchTarget(
  url: string | URL,
  options: CheckFetchTargetOptions & { resolve?: 'when-checked' | 'always' } = {},
): Promise<CheckedFetchTarget> {
  const subject = options.label ?? 'Outgoing request';
  const parsed = parseFetchUrl(url, subject);
  const exempt =
    options.allowPrivate === true || isAllowedHost(parsed.hostname, options.allowHosts ?? [], effectivePort(parsed));
  if (exempt && options.resolve !== 'always') return { url: parsed, addresses: [] };

  // URL keeps IPv6 literals in brackets; the odd IPv4 forms (`0x7f.1`, `2130706433`) arrive here
  // already rewritten by the URL parser as a dotted quad.
  const literal = parseIpAddress(parsed.hostname);
  let answers: Array<{ address: string; family?: number }>;
  if (literal) {
    answers = [{ address: parsed.hostname.replace(/^\[|\]$/g, ''), family: literal.family }];
  } else if (isLocalName(parsed.hostname)) {
    // `localhost` never goes to DNS: a resolver could otherwise claim it is public.
    answers = [{ address: '127.0.0.1', family: 4 }];
  } else {
    answers = await (options.lookup ?? defaultLookup)(parsed.hostname);
  }

  const addresses: CheckedFetchTarget['addresses'] = [];
  for (const answer of answers) {
    const family = parseIpAddress(answer.address)?.family;
    if (!exempt && (family === undefined || isPrivateAddress(answer.address))) {
      throw new NonRetryableError({
        code: 'PRIVATE_ADDRESS',
        field: 'transport.url',
        // host only: the URL's user info, path and query may carry secrets.
        message:
          `${subject}: ${parsed.host} is a private, loopback or reserved address (${answer.address}); ` +
          `set AGENTQ_ALLOW_PRIVATE_FETCH=true, or add ${parsed.hostname}:${effectivePort(parsed)} to ${options.allowHostsSetting ?? 'AGENTQ_FETCH_ALLOW_HOSTS'}, to allow it`,
      });
    }
    if (family !== undefined) addresses.push({ address: answer.address, family });
  }
  return { url: parsed, addresses };
}

/**
 * Refuses an outgoing HTTP target that is not http(s) or that resolves to anything but a public
 * internet address (see {@link isPrivateAddress}), unless `allowPrivate` is set or the host is in
 * `allowHosts`. Every address a name resolves to is checked, so a name with one public and one
 * private record is refused. Throws `NonRetryableError` with code `INVALID_URL` or
 * `PRIVATE_ADDRESS` (field `transport.url`); messages name the host only, never user info, path or
 * query.
 *
 * On its own this is an early, clear refusal, not a defence against DNS rebinding: the connection
 * made afterwards resolves the name again. Connect through `createGuardedFetch`, which runs the same
 * check and then connects to exactly the address it checked.
 */
export async function checkFetchTarget(url: string, options: CheckFetchTargetOptions = {}): Promise<void> {
  await resolveFetchTarget(url, options);
}
