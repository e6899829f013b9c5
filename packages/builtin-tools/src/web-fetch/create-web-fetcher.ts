import {
  AgentqError,
  checkFetchTarget,
  createGuardedFetch,
  readCappedBody,
  type ErrorCode,
  type FetchTargetLookup,
  type GuardedFetch,
} from '@agentq/shared';
import { describeNetworkError } from '../errors/describe-network-error.js';
import { type HtmlConverter, sharedHtmlConverter } from './create-html-converter.js';
import { cutToTokenBudget } from './cut-to-token-budget.js';
import { WEB_FETCH_ERROR_CODES } from './web-fetch-error-codes.js';

/** Options of {@link createWebFetcher}. */
export interface WebFetcherOptions {
  /** Largest body read, in bytes. `AGENTQ_WEB_FETCH_MAX_BYTES`. @default 2097152 */
  maxBytes?: number;
  /** Time one fetch may take, redirects and body included, in ms. `AGENTQ_WEB_FETCH_TIMEOUT_MS`. @default 15000 */
  timeoutMs?: number;
  /** Token budget of the content. `AGENTQ_WEB_FETCH_MAX_TOKENS`. @default 8000 */
  maxTokens?: number;
  /** Reach private and loopback addresses too. `AGENTQ_ALLOW_PRIVATE_FETCH`. @default false */
  allowPrivate?: boolean;
  /**
   * Hosts (or `host:port`) that may be private: `AGENTQ_WEB_FETCH_ALLOW_HOSTS`, never the general
   * `AGENTQ_FETCH_ALLOW_HOSTS`, since the model picks the URLs. @default []
   */
  allowHosts?: readonly string[];
  /** Name resolution, replaceable in tests. @default DNS */
  lookup?: FetchTargetLookup;
  /**
   * Turns HTML into Markdown. @default one conversion thread shared by every fetcher of the
   * process ({@link sharedHtmlConverter}), so a large page does not hold the event loop
   */
  htmlConverter?: HtmlConverter;
}

/** Text characters of an HTML page kept per token of budget before conversion. */
const textCharsPerToken = 8;

/** What kind of body a content type is. */
type BodyKind = 'html' | 'text' | 'json';

/** A fetched page, ready for the model. */
export interface WebPage {
  /** The URL the content came from, after redirects. */
  url: string;
  /** The media type, without parameters. */
  contentType: string;
  title?: string;
  /** Markdown for HTML, the body itself for text and JSON. */
  content: string;
  /** Whether `content` was cut to the token budget. */
  cut: boolean;
}

/** Fetches pages for `web_fetch`. */
export interface WebFetcher {
  fetchPage(options: { url: string; signal?: AbortSignal }): Promise<WebPage>;
}

/** Media types `web_fetch` reads; every other type is refused, named. */
export const WEB_FETCH_CONTENT_TYPES: Readonly<Record<string, BodyKind>> = Object.freeze({
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/plain': 'text',
  'text/markdown': 'text',
  'text/x-markdown': 'text',
  'text/csv': 'text',
  'application/json': 'json',
});

function kindOf(mediaType: string): BodyKind | undefined {
  return WEB_FETCH_CONTENT_TYPES[mediaType] ?? (mediaType.endsWith('+json') ? 'json' : undefined);
}

function fetchError(code: ErrorCode, message: string): AgentqError {
  return new AgentqError({ code, message });
}

/**
 * Creates the page fetcher behind `web_fetch`. A fetch:
 * 1. checks the URL (`checkFetchTarget`: http(s) only, no private, loopback or reserved address
 *    unless allowed), for an early, clear refusal;
 * 2. fetches through `createGuardedFetch`, which resolves the host again, checks that answer too and
 *    connects to exactly the address it checked, following at most 5 redirects, each checked the
 *    same way; a name that answers a public address first and a private one next (DNS rebinding)
 *    is refused at the second answer, and no answer it did not check is ever connected to;
 * 3. refuses a content type it does not read, naming it, and a body over the byte cap, reading no
 *    more than the cap;
 * 4. turns HTML into Markdown (Readability, then Turndown) on a conversion thread; text and JSON
 *    pass through;
 * 5. cuts the content to the token budget.
 * The time cap covers all of it.
 */
export function createWebFetcher(options: WebFetcherOptions = {}): WebFetcher {
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024;
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxTokens = options.maxTokens ?? 8_000;
  const guard = {
    allowPrivate: options.allowPrivate,
    allowHosts: options.allowHosts,
    allowHostsSetting: 'AGENTQ_WEB_FETCH_ALLOW_HOSTS',
    lookup: options.lookup,
  };
  const guardedFetch: GuardedFetch = createGuardedFetch(guard);
  const htmlConverter = options.htmlConverter ?? sharedHtmlConverter();

  async function fetchWithin(url: string, signal: AbortSignal): Promise<WebPage> {
    await checkFetchTarget(url, { ...guard, label: 'web_fetch' });
    let response: Response;
    try {
      response = await guardedFetch(url, {
        headers: {
          accept: 'text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.1',
          'user-agent': 'agentq-web-fetch/0.1',
        },
        signal,
      });
    } catch (error) {
      if (signal.aborted || AgentqError.isInstance(error)) throw error;
      throw fetchError(WEB_FETCH_ERROR_CODES.failed, `web_fetch: ${describeNetworkError(error)}`);
    }
    const finalUrl = response.url || url;
    if (!response.ok) {
      await response.body?.cancel();
      throw fetchError(WEB_FETCH_ERROR_CODES.failed, `web_fetch: ${hostOf(finalUrl)} answered HTTP ${response.status}`);
    }
    const header = response.headers.get('content-type') ?? '';
    const mediaType = (header.split(';')[0] ?? '').trim().toLowerCase();
    const kind = kindOf(mediaType);
    if (kind === undefined) {
      await response.body?.cancel();
      throw fetchError(
        WEB_FETCH_ERROR_CODES.contentType,
        `web_fetch: ${mediaType === '' ? 'a body without a content type' : mediaType} is not a content type web_fetch reads (HTML, plain text, Markdown or JSON)`,
      );
    }
    const bytes = await readCappedBody(response, { maxBytes, onTooLarge: () => tooLarge(maxBytes) });
    const body = decodeBody(bytes, charsetOf(header));
    let title: string | undefined;
    let content = body;
    let pruned = false;
    if (kind === 'html') {
      // Text far past the budget would be cut anyway: leave it out before converting, which is
      // the costly part. A token is rarely under two characters of text, so this keeps enough.
      const page = await htmlConverter.convert(body, { maxTextChars: maxTokens * textCharsPerToken, signal });
      title = page.title;
      content = page.markdown;
      pruned = page.pruned;
    }
    const budgeted = cutToTokenBudget(content, maxTokens);
    return {
      url: finalUrl,
      contentType: mediaType,
      ...(title === undefined ? {} : { title }),
      content: budgeted.text,
      cut: budgeted.cut || pruned,
    };
  }

  return {
    async fetchPage({ url, signal }) {
      const timeout = AbortSignal.timeout(timeoutMs);
      const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
      try {
        return await fetchWithin(url, combined);
      } catch (error) {
        if (timeout.aborted && !signal?.aborted) {
          throw fetchError(WEB_FETCH_ERROR_CODES.timeout, `web_fetch: ${hostOf(url)} took longer than ${timeoutMs} ms`);
        }
        throw error;
      }
    },
  };
}

function tooLarge(maxBytes: number): AgentqError {
  return fetchError(
    WEB_FETCH_ERROR_CODES.tooLarge,
    `web_fetch: the page is larger than ${maxBytes} bytes (AGENTQ_WEB_FETCH_MAX_BYTES)`,
  );
}

function charsetOf(contentType: string): string {
  // Parameters are `;`-separated `name=value`; split, not a regular expression over the header.
  for (const parameter of contentType.split(';').slice(1)) {
    const [name, value] = parameter.split('=');
    if (name?.trim().toLowerCase() === 'charset' && value) return value.trim().replace(/^"|"$/g, '');
  }
  return 'utf-8';
}

function decodeBody(bytes: Uint8Array, charset: string): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    // An unknown charset label: UTF-8 with replacement characters beats refusing the page.
    return new TextDecoder('utf-8').decode(bytes);
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return 'the URL';
  }
}
