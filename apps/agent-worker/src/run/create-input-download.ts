import {
  AgentqError,
  checkFetchTarget,
  createGuardedFetch,
  NonRetryableError,
  readCappedBody,
  type Config,
  type FetchTargetLookup,
  type GuardedFetch,
} from '@agentq/shared';
import type { Experimental_DownloadFunction as DownloadFunction } from 'ai';

// The defaults of AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS and AGENTQ_INPUT_DOWNLOAD_MAX_BYTES, for
// processors built without a full configuration.
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 20 * 1024 * 1024;

// Answers the same request may not get a moment later: timeout, too early, rate limited, and the
// 5xx family. Any other HTTP error is the URL's own and fails for good.
const transientStatuses = new Set([408, 425, 429]);
// Server errors that say the request itself will not be served: not implemented, HTTP version.
const lastingServerStatuses = new Set([501, 505]);
// Connection-level failures (Node's and undici's codes) that say nothing about the URL itself.
const transientNetworkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

type Downloaded = { data: Uint8Array; mediaType: string | undefined };
type FetchConfig = InputDownloadOptions['config'];

// One guarded fetch (one connection pool) per configuration, shared by every attempt under it.
const fetches = new WeakMap<FetchConfig, GuardedFetch>();

function guardedFetchOf(config: FetchConfig): GuardedFetch {
  let fetch = fetches.get(config);
  if (!fetch) {
    fetch = createGuardedFetch({
      allowPrivate: config.allowPrivateFetch ?? false,
      allowHosts: config.fetchAllowHosts ?? [],
      label: 'Input download',
    });
    fetches.set(config, fetch);
  }
  return fetch;
}

/** Options of {@link createInputDownload}. */
export interface InputDownloadOptions {
  config: Partial<
    Pick<Config, 'allowPrivateFetch' | 'fetchAllowHosts' | 'inputDownloadMaxBytes' | 'inputDownloadTimeoutMs'>
  >;
  /** The attempt's signal: a download stops with the attempt. */
  signal: AbortSignal;
  /**
   * @default a `createGuardedFetch` under `AGENTQ_ALLOW_PRIVATE_FETCH` and `AGENTQ_FETCH_ALLOW_HOSTS`,
   * one per `config` object
   */
  fetch?: GuardedFetch;
  /** Name resolution for checking the URLs the model reads itself. @default dns.promises.lookup */
  lookup?: FetchTargetLookup;
}

/**
 * The model loop's download hook for one run attempt. The model loop downloads an image or file
 * URL of the messages that the model does not read itself (`supportedUrls`), before every step;
 * this hook does it through agentq's guarded fetch instead of the SDK's own, so:
 * - private, loopback and link-local addresses are refused unless `AGENTQ_ALLOW_PRIVATE_FETCH` or
 *   `AGENTQ_FETCH_ALLOW_HOSTS` allows them, and every redirect is checked again;
 * - all downloads of the attempt together read at most `AGENTQ_INPUT_DOWNLOAD_MAX_BYTES`;
 * - each URL is downloaded once per attempt, whatever the number of steps.
 *
 * A URL the model reads itself is not downloaded, but its target is checked as the guarded fetch
 * would check it (scheme, and every address the host resolves to), once per attempt, before it
 * goes to the provider: a provider behind a local gateway fetches it from inside the network. The
 * check cannot stop the provider's own later lookup from getting another answer (DNS rebinding).
 *
 * A failure the next attempt would meet again (a refused address, a 4xx, the byte cap, a bad
 * redirect) is a `NonRetryableError` `INPUT_DOWNLOAD_FAILED`: the run's messages name the URL, and
 * they do not change on retry. One that may pass later (408, 425, 429, a 5xx, a failed connection,
 * `AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS`) is `INPUT_DOWNLOAD_UNAVAILABLE`, and the run job retries it
 * with its backoff, from its checkpoint.
 */
export function createInputDownload(options: InputDownloadOptions): DownloadFunction {
  const maxBytes = options.config.inputDownloadMaxBytes ?? DEFAULT_MAX_BYTES;
  const timeoutMs = options.config.inputDownloadTimeoutMs ?? DEFAULT_TIMEOUT_MS;
  const guarded = () => options.fetch ?? guardedFetchOf(options.config);
  // Per URL: its download, or, where the model reads it itself, the check of its target.
  const results = new Map<string, Promise<Downloaded | null>>();
  let used = 0;
  // One at a time, so that each download knows how much of the budget is left.
  let queue: Promise<unknown> = Promise.resolve();

  async function download(url: URL): Promise<Downloaded> {
    const name = safeUrl(url);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([options.signal, timeout]);
    try {
      const response = await guarded()(url, { signal });
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        const message = `${name} answered HTTP ${response.status}`;
        throw isTransientStatus(response.status) ? unavailable(message) : failed(message);
      }
      const data = await readCappedBody(response, {
        maxBytes: maxBytes - used,
        onTooLarge: () =>
          failed(`${name} would take the run's downloads past ${maxBytes} bytes (AGENTQ_INPUT_DOWNLOAD_MAX_BYTES)`),
      });
      used += data.byteLength;
      const mediaType = response.headers.get('content-type')?.split(';')[0]?.trim() || undefined;
      return { data, mediaType };
    } catch (error) {
      if (timeout.aborted && !options.signal.aborted && !AgentqError.isInstance(error)) {
        throw unavailable(`${name} took longer than ${timeoutMs} ms (AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS)`, error);
      }
      throw failure(error, `${name} could not be downloaded`, options.signal);
    }
  }

  function once(url: URL, readByModel: boolean): Promise<Downloaded | null> {
    // A check is of the host (its addresses), so one per scheme, host and port; a download per URL.
    const key = readByModel ? `check ${url.protocol}//${url.host}` : `download ${url.href}`;
    let pending = results.get(key);
    if (!pending) {
      // Checks and downloads take turns: a run's messages may name thousands of URLs, and each
      // lookup holds a thread of the pool every run of this worker shares.
      const work: Promise<Downloaded | null> = queue.then(() =>
        readByModel ? checkTarget(url, options, timeoutMs) : download(url),
      );
      queue = work.catch(() => undefined);
      pending = work;
      results.set(key, pending);
    }
    return pending;
  }

  return (requested) =>
    Promise.all(requested.map(({ url, isUrlSupportedByModel }) => once(url, isUrlSupportedByModel)));
}

// Where the model fetches the URL itself: the same target check as the guarded fetch, no request.
async function checkTarget(url: URL, options: InputDownloadOptions, timeoutMs: number): Promise<null> {
  const name = safeUrl(url);
  // A lookup cannot be cancelled; the attempt stops waiting for it at the timeout or its own end.
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([options.signal, timeout]);
  let stop: (() => void) | undefined;
  const stopped = new Promise<never>((_resolve, reject) => {
    stop = () => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
  });
  stopped.catch(() => undefined);
  try {
    await Promise.race([
      checkFetchTarget(url.href, {
        allowPrivate: options.config.allowPrivateFetch ?? false,
        allowHosts: options.config.fetchAllowHosts ?? [],
        ...(options.lookup ? { lookup: options.lookup } : {}),
        label: `${name}, which the model fetches itself`,
      }),
      stopped,
    ]);
    return null;
  } catch (error) {
    if (timeout.aborted && !options.signal.aborted && !AgentqError.isInstance(error)) {
      throw unavailable(
        `${name}: looking up its host took longer than ${timeoutMs} ms (AGENTQ_INPUT_DOWNLOAD_TIMEOUT_MS)`,
      );
    }
    throw failure(error, `${name} could not be checked`, options.signal);
  } finally {
    if (stop) signal.removeEventListener('abort', stop);
  }
}

// The attempt's own end (a shutdown, a parked run) is not the URL's fault; an agentq error (a
// refused address, a bad scheme, the cap) is for good; a network failure may pass.
function failure(error: unknown, context: string, attempt: AbortSignal): unknown {
  if (attempt.aborted) return attempt.reason;
  if (AgentqError.isInstance(error) && error.code.startsWith('INPUT_DOWNLOAD_')) return error;
  if (AgentqError.isInstance(error)) return failed(error.message, error);
  const message = `${context}: ${reasonOf(error)}`;
  return isTransientNetworkFailure(error) ? unavailable(message, error) : failed(message, error);
}

function failed(message: string, cause?: unknown): NonRetryableError {
  return new NonRetryableError({ code: 'INPUT_DOWNLOAD_FAILED', message, ...(cause === undefined ? {} : { cause }) });
}

function unavailable(message: string, cause?: unknown): AgentqError {
  return new AgentqError({ code: 'INPUT_DOWNLOAD_UNAVAILABLE', message, ...(cause === undefined ? {} : { cause }) });
}

function isTransientStatus(status: number): boolean {
  return (status >= 500 && !lastingServerStatuses.has(status)) || transientStatuses.has(status);
}

/** Whether a fetch failure came from the connection (its cause's code says so), not the URL. */
function isTransientNetworkFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && transientNetworkCodes.has(code)) return true;
    current = current.cause;
  }
  return false;
}

function reasonOf(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (!(cause instanceof Error)) return String(cause);
  // Every address of a host refusing gives an AggregateError, whose own message is empty.
  const first = cause instanceof AggregateError ? (cause.errors as unknown[])[0] : undefined;
  const code = (cause as NodeJS.ErrnoException).code;
  return (
    cause.message || (first instanceof Error ? first.message : '') || (typeof code === 'string' ? code : cause.name)
  );
}

// Scheme, host and path only: a URL's user info and query may carry credentials.
function safeUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}
