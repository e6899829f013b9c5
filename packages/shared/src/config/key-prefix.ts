/**
 * The prefix of one deployment's global queues and keys (`catalog-refresh`, `decisions`, server
 * definitions, warmers, admin sessions). Under Redis Cluster it is wrapped in a hash tag; the run
 * path and the per-server keys get hash tags of their own (see {@link keyNames} and
 * `RunShardRouter`), so that the load spreads over the masters.
 */
export function keyPrefix(options: { prefix: string; cluster: boolean }): string {
  if (!options.cluster) return options.prefix;
  return options.prefix.startsWith('{') ? options.prefix : `{${options.prefix}}`;
}

/** `agentq` for `agentq` and `{agentq}`: the deployment's prefix without its hash tag. */
export function untaggedPrefix(prefix: string): string {
  return prefix.startsWith('{') && prefix.endsWith('}') ? prefix.slice(1, -1) : prefix;
}
