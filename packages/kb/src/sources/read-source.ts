import { createHash } from 'node:crypto';
import { open, realpath } from 'node:fs/promises';
import { extname } from 'node:path';
import {
  AgentqError,
  NonRetryableError,
  createGuardedFetch,
  readCappedBody,
  type KbDocumentKind,
  type KbSource,
  type KbSourceOrigin,
} from '@agentq/shared';
import { resolveUnderRoot } from './resolve-under-root.js';

/** The raw content of one source, before parsing. */
export interface SourceContent {
  kind: KbDocumentKind;
  /** The file path, or the URL without credentials or query (`safeSourceUrl`), as results show it. */
  source: string;
  label?: string;
  bytes: Uint8Array;
  /** Hex SHA-256 of `bytes`. */
  digest: string;
}

/** Options of {@link readSource}. */
export interface ReadSourceOptions {
  source: KbSource;
  origin: KbSourceOrigin;
  /** Largest body read. */
  maxBytes: number;
  /** Folder API-originated files must resolve under; unset, API file sources are refused. */
  fileRoot?: string;
  /** Fetch guard settings for URL sources (`AGENTQ_ALLOW_PRIVATE_FETCH`, `AGENTQ_FETCH_ALLOW_HOSTS`). */
  allowPrivateNetwork?: boolean;
  allowHosts?: readonly string[];
  /** Time to read a URL source. @default 30000 */
  fetchTimeoutMs?: number;
  signal?: AbortSignal;
}

const kindByExtension: Record<string, KbDocumentKind> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.txt': 'text',
  '.text': 'text',
  '.html': 'html',
  '.htm': 'html',
  '.pdf': 'pdf',
};

/** File extensions the indexer reads; a folder source is expanded to the files with these. */
export const SUPPORTED_EXTENSIONS: readonly string[] = Object.keys(kindByExtension);

/** The document kind of a file name, or undefined when it is not supported. */
export function kindOfFile(path: string): KbDocumentKind | undefined {
  return kindByExtension[extname(path).toLowerCase()];
}

/**
 * Reads one source's bytes. Files: links resolved first, and an `api` source must then lie under
 * `fileRoot` (a REST caller must never make the indexer read an arbitrary server file). URLs: the
 * shared fetch guard, a byte cap and a time cap, and a content type that names a supported kind.
 * A source that cannot be read as asked fails with a `NonRetryableError`; a network failure is
 * thrown as is, so the job retries.
 */
export async function readSource(options: ReadSourceOptions): Promise<SourceContent> {
  const { source } = options;
  if (source.type === 'file') return await readFileSource({ ...options, source });
  return await readUrlSource({ ...options, source });
}

async function readFileSource(options: ReadSourceOptions & { source: Extract<KbSource, { type: 'file' }> }) {
  const { source } = options;
  const kind = kindOfFile(source.path);
  if (kind === undefined) {
    throw new NonRetryableError({
      code: 'UNSUPPORTED_SOURCE',
      field: 'source.path',
      message: `${source.path}: unsupported file type "${extname(source.path) || '(none)'}" (use ${SUPPORTED_EXTENSIONS.join(', ')})`,
    });
  }
  let resolved: string;
  if (options.origin === 'api') {
    // Decided before anything about the file is reported, so an outside path answers alike
    // whether or not it exists.
    resolved = await resolveUnderRoot(source.path, options.fileRoot);
  } else {
    try {
      resolved = await realpath(source.path);
    } catch {
      throw new NonRetryableError({ code: 'NOT_FOUND', field: 'source.path', message: `${source.path}: no such file` });
    }
  }
  const handle = await open(resolved, 'r');
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      throw new NonRetryableError({ code: 'VALIDATION', field: 'source.path', message: `${source.path}: not a file` });
    }
    if (stat.size > options.maxBytes) throw tooLarge(source.path, options.maxBytes);
    const bytes = new Uint8Array(await handle.readFile());
    return withDigest({ kind, source: source.path, ...(source.label ? { label: source.label } : {}), bytes });
  } finally {
    await handle.close();
  }
}

/**
 * Throws `FORBIDDEN` unless `path` lies in or under `root`, with the same answer for every path
 * outside whether or not it exists (see {@link resolveUnderRoot}).
 */
export async function assertUnderRoot(path: string, root: string | undefined): Promise<void> {
  await resolveUnderRoot(path, root);
}

async function readUrlSource(options: ReadSourceOptions & { source: Extract<KbSource, { type: 'url' }> }) {
  const { url } = options.source;
  // A job from before the source schema refused them: `fetch` throws on credentials, quoting them.
  if (URL.canParse(url) && (new URL(url).username !== '' || new URL(url).password !== '')) {
    throw new NonRetryableError({
      code: 'VALIDATION',
      field: 'source.url',
      message: `${safeSourceUrl(url)}: a URL source must not carry credentials (user:password@)`,
    });
  }
  const guarded = createGuardedFetch({
    allowPrivate: options.allowPrivateNetwork ?? false,
    ...(options.allowHosts ? { allowHosts: options.allowHosts } : {}),
  });
  const timeout = AbortSignal.timeout(options.fetchTimeoutMs ?? 30_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await guarded(url, {
      signal,
      headers: { accept: 'text/markdown, text/html, text/plain, application/pdf' },
    });
  } catch (error) {
    // The guard's refusals (private address, bad URL) do not change on retry.
    if (AgentqError.isInstance(error)) {
      throw new NonRetryableError({ code: error.code, field: 'source.url', message: error.message });
    }
    throw error;
  }
  if (!response.ok) {
    await response.body?.cancel();
    const message = `${safeSourceUrl(url)} answered HTTP ${response.status}`;
    // A 4xx will answer the same next time; a 5xx may not.
    if (response.status >= 400 && response.status < 500) {
      throw new NonRetryableError({ code: 'SOURCE_UNAVAILABLE', field: 'source.url', message });
    }
    throw new AgentqError({ code: 'SOURCE_UNAVAILABLE', field: 'source.url', message });
  }
  const contentType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const kind = kindOfContentType(contentType, url);
  if (kind === undefined) {
    await response.body?.cancel();
    throw new NonRetryableError({
      code: 'UNSUPPORTED_SOURCE',
      field: 'source.url',
      message: `${safeSourceUrl(url)}: content type "${contentType || '(none)'}" is not supported (Markdown, plain text, HTML or PDF)`,
    });
  }
  const bytes = await readCappedBody(response, {
    maxBytes: options.maxBytes,
    onTooLarge: () => tooLarge(safeSourceUrl(url), options.maxBytes),
  });
  // The document records where it came from without the URL's credentials or query; its id is
  // still taken from the full URL (`documentIdOf`), so two queries of one path stay two documents.
  return withDigest({ kind, source: safeSourceUrl(url), bytes });
}

function kindOfContentType(contentType: string, url: string): KbDocumentKind | undefined {
  if (contentType === 'text/markdown' || contentType === 'text/x-markdown') return 'markdown';
  if (contentType === 'text/html' || contentType === 'application/xhtml+xml') return 'html';
  if (contentType === 'application/pdf') return 'pdf';
  if (contentType === 'text/plain') return kindOfFile(new URL(url).pathname) === 'markdown' ? 'markdown' : 'text';
  return undefined;
}

function tooLarge(name: string, maxBytes: number): NonRetryableError {
  return new NonRetryableError({
    code: 'SOURCE_TOO_LARGE',
    field: 'source',
    message: `${name} is larger than ${maxBytes} bytes (AGENTQ_KB_MAX_SOURCE_BYTES)`,
  });
}

/**
 * A URL as agentq shows and stores it: scheme, host and path only. Its user info and query may
 * carry credentials (`https://user:token@host/doc?key=…`), so neither is kept; the fragment goes
 * too. What a knowledge base document records as its `source`, and what errors name.
 */
export function safeSourceUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * A document's `source` as shown: a URL in its {@link safeSourceUrl} form (also for documents
 * recorded before sources were stored that way), a file path as it is.
 */
export function shownDocumentSource(source: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(source) ? safeSourceUrl(source) : source;
}

function withDigest(content: Omit<SourceContent, 'digest'>): SourceContent {
  return { ...content, digest: createHash('sha256').update(content.bytes).digest('hex') };
}
