/**
 * The prefix every queue and key of one deployment lives under. Under Redis Cluster it is wrapped
 * in a hash tag, so that BullMQ flows (parent and child in different queues) and our Lua scripts
 * touch keys of a single slot.
 */
export function keyPrefix(options: { prefix: string; cluster: boolean }): string {
  if (!options.cluster) return options.prefix;
  return options.prefix.startsWith('{') ? options.prefix : `{${options.prefix}}`;
}

/** Builders for every Redis key and channel agentq owns, given a (possibly hash-tagged) prefix. */
export interface KeyNames {
  readonly prefix: string;
  /** Catalog entry of one server: `P:mcp.tools.<serverId>`. */
  tools(serverId: string): string;
  /** Status record of one server: `P:mcp.status.<serverId>`. */
  status(serverId: string): string;
  /** Hash of server definitions, id → JSON. */
  readonly servers: string;
  /** Pub/sub channel of server definition changes. */
  readonly serversChanged: string;
  /** Pub/sub channel carrying `{ serverId, version }` when a tool list really changed. */
  readonly catalogUpdated: string;
  /** Run checkpoint: `P:run.<runId>`. */
  run(runId: string): string;
  /**
   * Journal of a run's executed tool calls, by tool call id: `P:run.<runId>:tool-results`. It lives
   * and dies with the checkpoint (see `runStateKeys`).
   */
  runToolResults(runId: string): string;
  /** Recorded decision of one approval. */
  decision(approvalId: string): string;
  /** Pending approval index for the sweeper and listings (sorted set by expiry). */
  readonly pendingApprovals: string;
  /** Lease on the `list_changed` watcher of one server. */
  watchLease(serverId: string): string;
  /** Heartbeat and status record of one warmer process. */
  warmer(warmerId: string): string;
  /** Sorted set of live warmer ids, scored by last heartbeat. */
  readonly warmers: string;
  /** Per-server refresh lock held by the warmer refreshing it: `P:lock.refresh.<serverId>`. */
  refreshLock(serverId: string): string;
  /** Hash of server id → whether it declared `tools.listChanged`, per definition hash. */
  readonly warmerCapabilities: string;
  /**
   * Pub/sub channel of one warmer on which other warmers hand it refreshes of the servers whose
   * watcher lease it holds, so that the list is read over its session
   * (`{ serverId, reason, requestedAt }`).
   */
  refreshDelegated(warmerId: string): string;
  /** Server-side record of one admin login session, by the SHA-256 of its cookie value. */
  adminSession(sessionDigest: string): string;
  /** Prefix of the per-address counters of the admin login rate limit. */
  readonly loginRateLimit: string;
  /**
   * Embedding of one tool text by one model: `P:embedding.<modelDigest>.<textDigest>`. Keyed by
   * content, so an unchanged tool is never embedded again, whichever server or warmer offers it.
   */
  toolEmbedding(modelDigest: string, textDigest: string): string;
}

/** Key names under `prefix`. Pass the result of {@link keyPrefix}. */
export function keyNames(prefix: string): KeyNames {
  return {
    prefix,
    tools: (serverId) => `${prefix}:mcp.tools.${serverId}`,
    status: (serverId) => `${prefix}:mcp.status.${serverId}`,
    servers: `${prefix}:servers`,
    serversChanged: `${prefix}:servers.changed`,
    catalogUpdated: `${prefix}:catalog.updated`,
    run: (runId) => `${prefix}:run.${runId}`,
    runToolResults: (runId) => `${prefix}:run.${runId}:tool-results`,
    decision: (approvalId) => `${prefix}:approval.${approvalId}`,
    pendingApprovals: `${prefix}:approvals.pending`,
    watchLease: (serverId) => `${prefix}:lease.watch.${serverId}`,
    warmer: (warmerId) => `${prefix}:warmer.${warmerId}`,
    warmers: `${prefix}:warmers`,
    refreshLock: (serverId) => `${prefix}:lock.refresh.${serverId}`,
    warmerCapabilities: `${prefix}:warmer.capabilities`,
    refreshDelegated: (warmerId) => `${prefix}:catalog.refresh.delegated.${warmerId}`,
    adminSession: (sessionDigest) => `${prefix}:admin.session.${sessionDigest}`,
    loginRateLimit: `${prefix}:admin.login-limit.`,
    toolEmbedding: (modelDigest, textDigest) => `${prefix}:embedding.${modelDigest}.${textDigest}`,
  };
}

/**
 * Every key that holds one run's durable state: its checkpoint and its tool-result journal. They
 * are written, expired and deleted together, so a run never keeps one without the other.
 */
export function runStateKeys(keys: KeyNames, runId: string): [checkpoint: string, toolResults: string] {
  return [keys.run(runId), keys.runToolResults(runId)];
}
