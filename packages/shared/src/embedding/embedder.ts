/**
 * Turns texts into vectors with one embedding model. Tool search and `kb_search` are given one
 * (see `createEmbedder` in `@agentq/models`); neither builds a provider itself.
 */
export interface Embedder {
  /** The configured model, `provider:model`; part of every stored vector's key. */
  readonly modelId: string;
  /** One vector per text, in order. Throws when the model cannot be reached. */
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}
