export { startCatalogWarmer } from './start-catalog-warmer.js';
export type { CatalogWarmer, StartCatalogWarmerOptions } from './start-catalog-warmer.js';
export { readWarmerHealth, warmerRecordSchema } from './health/warmer-health.js';
export type { WarmerHealth, WarmerRecord } from './health/warmer-health.js';
export { resolveWarmerTimings } from './warmer-timings.js';
export type { WarmerTimings } from './warmer-timings.js';
export { refreshScheduleId } from './schedule/refresh-schedules.js';
export type { RefreshOutcome } from './refresh/create-refresh-processor.js';
