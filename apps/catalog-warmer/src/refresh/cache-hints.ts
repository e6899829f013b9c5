import type { CatalogCacheScope } from '@agentq/shared';

/**
 * Floor of a `ttlMs` cache hint: a server asking for a re-read every few milliseconds would make
 * the warmer poll it in a loop, so any shorter hint schedules the next refresh after 30 s.
 */
export const CACHE_TTL_FLOOR_MS = 30_000;

/**
 * Ceiling of a `ttlMs` cache hint: a list that is meant to live for weeks is still re-read once a
 * day, so a server that forgets to send `list_changed` is noticed within 24 h.
 */
export const CACHE_TTL_CEILING_MS = 24 * 60 * 60_000;

/** The cache hints of one `tools/list` answer (MCP 2026-07-28), as the server sent them. */
export interface CacheHints {
  /** A positive `ttlMs`; absent when the server sent none, 0, or something that is not a number. */
  ttlMs?: number;
  /** `cacheScope`; absent when the server sent none or an unknown value. */
  cacheScope?: CatalogCacheScope;
}

/**
 * Reads `ttlMs` and `cacheScope` from one raw `tools/list` result. Hints are advice: a malformed
 * one is ignored (today's behaviour), never an error that fails the refresh.
 */
export function readCacheHints(result: unknown): CacheHints {
  if (typeof result !== 'object' || result === null) return {};
  const { ttlMs, cacheScope } = result as { ttlMs?: unknown; cacheScope?: unknown };
  const hints: CacheHints = {};
  if (typeof ttlMs === 'number' && Number.isFinite(ttlMs) && ttlMs >= 1) hints.ttlMs = Math.floor(ttlMs);
  if (cacheScope === 'private' || cacheScope === 'shared') hints.cacheScope = cacheScope;
  return hints;
}

/**
 * Merges the hints of the pages of one list: the shortest `ttlMs` wins (the list is only as fresh
 * as its most short-lived page), and one `private` page makes the whole list private.
 */
export function mergeCacheHints(pages: readonly CacheHints[]): CacheHints {
  const merged: CacheHints = {};
  for (const page of pages) {
    if (page.ttlMs !== undefined) merged.ttlMs = Math.min(merged.ttlMs ?? page.ttlMs, page.ttlMs);
    if (page.cacheScope === 'private' || (page.cacheScope === 'shared' && merged.cacheScope === undefined)) {
      merged.cacheScope = page.cacheScope;
    }
  }
  return merged;
}

/**
 * Delay of the background refresh that a `ttlMs` hint asks for, clamped to
 * [{@link CACHE_TTL_FLOOR_MS}, {@link CACHE_TTL_CEILING_MS}]. `undefined` for no hint or a hint of
 * 0: the server gets no hint-driven refresh (today's behaviour).
 */
export function clampCacheTtlMs(ttlMs: number | undefined): number | undefined {
  if (ttlMs === undefined || !Number.isFinite(ttlMs) || ttlMs <= 0) return undefined;
  return Math.min(CACHE_TTL_CEILING_MS, Math.max(CACHE_TTL_FLOOR_MS, Math.floor(ttlMs)));
}
