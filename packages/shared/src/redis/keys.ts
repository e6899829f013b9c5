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

/**
 * The scope (hash tag) of one entity's keys under a hash-tagged prefix: `{agentq.srv.<id>}` for
 * servers, `{agentq.kb.<id>}` for knowledge bases. Every key of one entity shares it, so a Lua
 * script over that entity's keys stays in one slot, while different entities spread over the
 * cluster. Without a hash tag (a single Redis) the scope is the prefix itself, so the key names
 * stay those of a single node.
 */
export function entityScope(prefix: string, kind: 'srv' | 'kb', id: string): string {
  if (!(prefix.startsWith('{') && prefix.endsWith('}'))) return prefix;
  return `{${untaggedPrefix(prefix)}.${kind}.${id}}`;
}

/**
 * Builders for every Redis key and channel agentq owns, given a (possibly hash-tagged) prefix.
 *
 * The rule: a key is `<scope>:<name>`, where the scope is the deployment prefix for global keys,
 * the entity scope ({@link entityScope}) for per-server keys, and the run shard's prefix for run
 * keys (`run`, `runToolResults`, `decision`, `pendingApprovals`: build them from the shard's
 * prefix, `RunShard.keys`). On a single Redis with one run shard every scope is the prefix.
 */
export interface KeyNames {
  readonly prefix: string;
  /** Catalog entry of one server: `P:mcp.tools.<serverId>` (`{P.srv.<id>}:mcp.tools.<id>` on a cluster). */
  tools(serverId: string): string;
  /**
   * Version of one server's catalog entry: `P:mcp.version.<serverId>`, the digest of the entry's
   * bytes (`catalogEntryDigest`), written in the same script as the entry. A reader that holds an
   * entry with this digest need not read the entry again; a missing key means "read the entry".
   */
  catalogVersion(serverId: string): string;
  /** Status record of one server: `P:mcp.status.<serverId>`. */
  status(serverId: string): string;
  /** One server's OAuth state (tokens, registered client), encrypted: `P:oauth.<serverId>`. */
  oauthTokens(serverId: string): string;
  /** The lease a process holds while it refreshes one server's tokens: `P:lock.oauth.<serverId>`. */
  oauthRefreshLease(serverId: string): string;
  /** One started authorization-code flow, by its `state` (single use, expiring): `P:oauth.flow.<state>`. */
  oauthFlow(state: string): string;
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
  /** Set of every run shard count processes of this deployment have used (`AGENTQ_RUN_SHARDS`). */
  readonly runShardCounts: string;
  /** Lease on the `list_changed` watcher of one server. */
  watchLease(serverId: string): string;
  /**
   * Session generation of one server, bumped by a restart (`ServerSessions`):
   * `P:mcp.session.<serverId>`.
   */
  serverSession(serverId: string): string;
  /** Pub/sub channel carrying a server id right after `ServerSessions.renew` bumped its generation. */
  readonly serverSessionRenewed: string;
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
  /** Hash of knowledge base definitions, name → JSON. */
  readonly kbs: string;
  /** The current version of one knowledge base (a number): `P:kb.<name>.version`. */
  kbVersion(kb: string): string;
  /** Counter that hands out a knowledge base's versions; it outlives the KB, so a re-created KB never reuses one. */
  kbSerial(kb: string): string;
  /** The documents of one version of a knowledge base: `P:kb.<name>.manifest.<version>`. */
  kbManifest(kb: string, version: number): string;
  /** Chunks of one document content, chunk id → JSON: `P:kb.<name>.chunks.<documentId>.<digest>`. */
  kbChunks(kb: string, documentId: string, digest: string): string;
  /** Set of every chunk hash key ever written for a knowledge base, so removal leaves nothing behind. */
  kbChunkSets(kb: string): string;
  /** Pub/sub channel carrying `{ kb, version }` after a knowledge base switched versions. */
  readonly kbUpdated: string;
  /**
   * Embedding of one tool text by one model: `P:embedding.<modelDigest>.<textDigest>`. Keyed by
   * content, so an unchanged tool is never embedded again, whichever server or warmer offers it.
   */
  toolEmbedding(modelDigest: string, textDigest: string): string;
}

/** Key names under `prefix`. Pass the result of {@link keyPrefix}. */
export function keyNames(prefix: string): KeyNames {
  const server = (serverId: string) => entityScope(prefix, 'srv', serverId);
  return {
    prefix,
    tools: (serverId) => `${server(serverId)}:mcp.tools.${serverId}`,
    catalogVersion: (serverId) => `${server(serverId)}:mcp.version.${serverId}`,
    status: (serverId) => `${server(serverId)}:mcp.status.${serverId}`,
    oauthTokens: (serverId) => `${server(serverId)}:oauth.${serverId}`,
    oauthRefreshLease: (serverId) => `${server(serverId)}:lock.oauth.${serverId}`,
    oauthFlow: (state) => `${prefix}:oauth.flow.${state}`,
    servers: `${prefix}:servers`,
    serversChanged: `${prefix}:servers.changed`,
    catalogUpdated: `${prefix}:catalog.updated`,
    run: (runId) => `${prefix}:run.${runId}`,
    runToolResults: (runId) => `${prefix}:run.${runId}:tool-results`,
    decision: (approvalId) => `${prefix}:approval.${approvalId}`,
    pendingApprovals: `${prefix}:approvals.pending`,
    runShardCounts: `${prefix}:run.shard-counts`,
    watchLease: (serverId) => `${server(serverId)}:lease.watch.${serverId}`,
    serverSession: (serverId) => `${server(serverId)}:mcp.session.${serverId}`,
    serverSessionRenewed: `${prefix}:mcp.sessions.renewed`,
    warmer: (warmerId) => `${prefix}:warmer.${warmerId}`,
    warmers: `${prefix}:warmers`,
    refreshLock: (serverId) => `${server(serverId)}:lock.refresh.${serverId}`,
    warmerCapabilities: `${prefix}:warmer.capabilities`,
    refreshDelegated: (warmerId) => `${prefix}:catalog.refresh.delegated.${warmerId}`,
    adminSession: (sessionDigest) => `${prefix}:admin.session.${sessionDigest}`,
    loginRateLimit: `${prefix}:admin.login-limit.`,
    kbs: `${prefix}:kbs`,
    kbVersion: (kb) => `${prefix}:kb.${kb}.version`,
    kbSerial: (kb) => `${prefix}:kb.${kb}.serial`,
    kbManifest: (kb, version) => `${prefix}:kb.${kb}.manifest.${version}`,
    kbChunks: (kb, documentId, digest) => `${prefix}:kb.${kb}.chunks.${documentId}.${digest}`,
    kbChunkSets: (kb) => `${prefix}:kb.${kb}.chunk-sets`,
    kbUpdated: `${prefix}:kb.updated`,
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
