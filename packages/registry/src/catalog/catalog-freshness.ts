import { isAuthCatalogState, serverDisplayName, type AUTH_CATALOG_STATES } from '@agentq/shared';
import type { CatalogRead } from './catalog-reader.js';

/**
 * What a run should know about one requested server whose tools it cannot fully trust:
 * - `stale`: its last good list is served while its refreshes fail; `since` is when that list was
 *   read (epoch ms);
 * - `unavailable`: it contributes no tools to this run; `reason` says why.
 */
export type ServerFreshness =
  | {
      kind: 'stale';
      serverId: string;
      label: string;
      since: number;
      error?: string;
      /** The latest attempt was refused for want of authorization (`auth-required`/`auth-failed`). */
      authorization?: AuthCatalogState;
    }
  | {
      kind: 'unavailable';
      serverId: string;
      label: string;
      reason: 'removed' | 'disabled' | 'not-warmed' | 'error' | 'definition-changed' | 'unreadable' | AuthCatalogState;
      error?: string;
    };

type AuthCatalogState = (typeof AUTH_CATALOG_STATES)[number];

/** Longest server label shown to the model. */
const MAX_LABEL_LENGTH = 60;
/** Longest error excerpt shown to the model (the status already holds a masked, bounded text). */
const MAX_ERROR_LENGTH = 160;

/**
 * Text on one line, cut to `max` characters, with no angle brackets: a server's error may hold
 * anything (newlines, or a closing tag meant to end the prompt section it is quoted in).
 */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').replace(/</g, '‹').replace(/>/g, '›').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

/** An instant to the minute (`2026-12-01T15:00Z`): short, and stable across runs for prompt caching. */
export function minuteOf(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 16)}Z`;
}

/**
 * How fresh one read is, or `undefined` when it is fine (read fresh, or warmed and empty). Reads
 * the cache record only: the status written by the last refresh attempt, whose error text the
 * warmer already masked. The label is the server's display name, as on its tools' group.
 */
export function serverFreshnessOf(read: CatalogRead, now: number = Date.now()): ServerFreshness | undefined {
  // A fine read (the common case) returns before any label is made.
  const state = read.status?.state;
  if (
    read.state !== 'cold' &&
    (!read.status || (state !== 'stale' && state !== 'error' && !isAuthCatalogState(state)))
  ) {
    return undefined;
  }
  const label = oneLine(read.definition ? serverDisplayName(read.definition) : read.serverId, MAX_LABEL_LENGTH);
  const error = read.status?.error ? oneLine(read.status.error, MAX_ERROR_LENGTH) : undefined;
  const base = { serverId: read.serverId, label, ...(error === undefined ? {} : { error }) };
  if (read.state !== 'cold' && read.status) {
    const since = read.status.lastSuccessAt ?? now - (read.ageMs ?? 0);
    return { kind: 'stale', ...base, since, ...(isAuthCatalogState(state) ? { authorization: state } : {}) };
  }
  switch (read.coldReason) {
    case 'unknown-server':
      return { kind: 'unavailable', serverId: read.serverId, label, reason: 'removed' };
    case 'disabled':
      return { kind: 'unavailable', serverId: read.serverId, label, reason: 'disabled' };
    case 'definition-changed':
      return { kind: 'unavailable', ...base, reason: 'definition-changed' };
    case 'corrupt':
      return { kind: 'unavailable', serverId: read.serverId, label, reason: 'unreadable' };
    default:
      // Never warmed: either no attempt has finished yet, or every one failed (authorization included).
      return { kind: 'unavailable', ...base, reason: coldReasonOf(read.status?.state) };
  }
}

function coldReasonOf(state: string | undefined): Extract<ServerFreshness, { kind: 'unavailable' }>['reason'] {
  if (isAuthCatalogState(state)) return state;
  return state === 'error' ? 'error' : 'not-warmed';
}

/** The note a stale server's tools carry, in their description and in search results. */
export function staleToolNote(freshness: Extract<ServerFreshness, { kind: 'stale' }>): string {
  if (freshness.authorization) {
    return `server ${freshness.label} needs authorization agentq does not have; the call will likely fail`;
  }
  return `server ${freshness.label} is stale since ${minuteOf(freshness.since)}; results may be outdated or the call may fail`;
}

/**
 * A note per namespace (`mcp:<serverId>`) for the servers whose latest refresh failed while their
 * last good list is still being served (status `stale` or `error`), for their tools to carry: the
 * model should know that such a tool may have changed or gone. Servers read fresh get none.
 */
export function catalogFreshness(
  reads: ReadonlyMap<string, CatalogRead>,
  now: number = Date.now(),
): Map<string, string> {
  const notes = new Map<string, string>();
  for (const [serverId, read] of reads) {
    const freshness = serverFreshnessOf(read, now);
    if (freshness?.kind === 'stale') notes.set(`mcp:${serverId}`, staleToolNote(freshness));
  }
  return notes;
}
