/**
 * Model providers from configuration: the one place a provider package (`@ai-sdk/*`) is turned
 * into something the registry or a run uses. Today: the embedder of `AGENTQ_EMBEDDING_MODEL`.
 */
export { createEmbedder } from './embedding/create-embedder.js';
export type { CreateEmbedderOptions, EmbedderConfig } from './embedding/create-embedder.js';
