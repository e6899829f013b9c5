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
  /** Run checkpoint. */
  run(runId: string): string;
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
  /** Refresh backoff state of one server. */
  refreshBackoff(serverId: string): string;
  /** Server-side record of one admin login session, by the SHA-256 of its cookie value. */
  adminSession(sessionDigest: string): string;
  /** Prefix of the per-address counters of the admin login rate limit. */
  readonly loginRateLimit: string;
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
    decision: (approvalId) => `${prefix}:approval.${approvalId}`,
    pendingApprovals: `${prefix}:approvals.pending`,
    watchLease: (serverId) => `${prefix}:lease.watch.${serverId}`,
    warmer: (warmerId) => `${prefix}:warmer.${warmerId}`,
    warmers: `${prefix}:warmers`,
    refreshBackoff: (serverId) => `${prefix}:mcp.backoff.${serverId}`,
    adminSession: (sessionDigest) => `${prefix}:admin.session.${sessionDigest}`,
    loginRateLimit: `${prefix}:admin.login-limit.`,
  };
}
