export { startCatalogWarmer } from './start-catalog-warmer.js';
export type { CatalogWarmer, StartCatalogWarmerOptions } from './start-catalog-warmer.js';
export { readWarmerHealth, warmerRecordSchema } from '@agentq/store';
export type { WarmerHealth, WarmerRecord } from '@agentq/store';
export { resolveWarmerTimings } from './warmer-timings.js';
export type { WarmerTimings } from './warmer-timings.js';
export { CACHE_TTL_JOB_NAME, cacheTtlJobId, refreshScheduleId } from './schedule/refresh-schedules.js';
export { CACHE_TTL_CEILING_MS, CACHE_TTL_FLOOR_MS, clampCacheTtlMs } from './refresh/cache-hints.js';
export type { RefreshOutcome } from './refresh/create-refresh-processor.js';
