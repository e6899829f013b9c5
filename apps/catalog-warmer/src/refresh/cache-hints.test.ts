import { describe, expect, it } from 'vitest';
import {
  CACHE_TTL_CEILING_MS,
  CACHE_TTL_FLOOR_MS,
  clampCacheTtlMs,
  mergeCacheHints,
  readCacheHints,
} from './cache-hints.js';

describe('clampCacheTtlMs', () => {
  it('keeps today behaviour for no hint and for 0', () => {
    expect(clampCacheTtlMs(undefined)).toBeUndefined();
    expect(clampCacheTtlMs(0)).toBeUndefined();
    expect(clampCacheTtlMs(-5)).toBeUndefined();
    expect(clampCacheTtlMs(Number.NaN)).toBeUndefined();
  });

  it('raises short hints to the floor and lowers long ones to the ceiling', () => {
    expect(clampCacheTtlMs(1)).toBe(CACHE_TTL_FLOOR_MS);
    expect(clampCacheTtlMs(CACHE_TTL_FLOOR_MS - 1)).toBe(CACHE_TTL_FLOOR_MS);
    expect(clampCacheTtlMs(CACHE_TTL_CEILING_MS + 1)).toBe(CACHE_TTL_CEILING_MS);
    expect(clampCacheTtlMs(Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('passes hints inside the bounds through', () => {
    expect(clampCacheTtlMs(CACHE_TTL_FLOOR_MS)).toBe(CACHE_TTL_FLOOR_MS);
    expect(clampCacheTtlMs(90_000.7)).toBe(90_000);
    expect(clampCacheTtlMs(CACHE_TTL_CEILING_MS)).toBe(CACHE_TTL_CEILING_MS);
  });

  it('chooses a floor below the ceiling', () => {
    expect(CACHE_TTL_FLOOR_MS).toBeLessThan(CACHE_TTL_CEILING_MS);
  });
});

describe('readCacheHints', () => {
  it('reads ttlMs and cacheScope from a raw result', () => {
    expect(readCacheHints({ tools: [], ttlMs: 5_000, cacheScope: 'private' })).toEqual({
      ttlMs: 5_000,
      cacheScope: 'private',
    });
  });

  it('ignores absent, zero and malformed hints', () => {
    expect(readCacheHints({ tools: [] })).toEqual({});
    expect(readCacheHints({ tools: [], ttlMs: 0 })).toEqual({});
    expect(readCacheHints({ tools: [], ttlMs: '5000', cacheScope: 'team' })).toEqual({});
    expect(readCacheHints(null)).toEqual({});
  });
});

describe('mergeCacheHints', () => {
  it('takes the shortest ttl and lets one private page make the list private', () => {
    expect(
      mergeCacheHints([{ ttlMs: 60_000, cacheScope: 'shared' }, { ttlMs: 40_000, cacheScope: 'private' }, {}]),
    ).toEqual({ ttlMs: 40_000, cacheScope: 'private' });
    expect(mergeCacheHints([{ cacheScope: 'shared' }, {}])).toEqual({ cacheScope: 'shared' });
    expect(mergeCacheHints([])).toEqual({});
  });
});
