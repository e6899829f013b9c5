export { startIndexer } from './start-indexer.js';
export type { Indexer, StartIndexerOptions } from './start-indexer.js';
export { indexerRole } from './indexer-role.js';
