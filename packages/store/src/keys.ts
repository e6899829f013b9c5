import { untaggedPrefix, type QueueName } from '@agentq/shared';

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
  /**
   * Version of the server definitions hash: `P:servers.version`, a counter every writer of
   * `P:servers` increments in the same script or transaction. A reader that holds the definitions
   * of this version need not read the hash again; a missing key means "read the hash".
   */
  readonly serversVersion: string;
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
  /**
   * The model messages of a run in the step-log format, one JSON message per list item, in order:
   * `P:run.<runId>:messages`. Appended with each step; lives and dies with the checkpoint.
   */
  runMessages(runId: string): string;
  /** The step records of a run, one per list item, in order: `P:run.<runId>:steps`. */
  runSteps(runId: string): string;
  /**
   * The model's answer for the run step in flight, written before that step's tool calls run, so a
   * re-run replays it instead of asking again: `P:run.<runId>:step-answer`. One JSON value, replaced
   * by the next step that calls tools; lives and dies with the checkpoint.
   */
  runStepAnswer(runId: string): string;
  /**
   * The tool definitions of one catalog version of a server, content-addressed by the version (the
   * digest of its tools): `P:mcp.snapshot.<serverId>.<version>`. Written and kept alive by the
   * runs that were shown them.
   */
  catalogSnapshot(serverId: string, version: string): string;
  /** Recorded decision of one approval. */
  decision(approvalId: string): string;
  /** Pending approval index for the sweeper and listings (sorted set by expiry). */
  readonly pendingApprovals: string;
  /** Request and answer of one elicitation a run parked on: `P:elicitation.<elicitationId>`. */
  elicitation(elicitationId: string): string;
  /** Unanswered elicitations, for listings (sorted set by expiry): `P:elicitations.pending`. */
  readonly pendingElicitations: string;
  /** A run's elicitations by tool call id: `P:run.<runId>:elicitations` (hash, expires on its own). */
  runElicitations(runId: string): string;
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
  /**
   * Example requests one model wrote for one tool text: `P:enrichment.<modelDigest>.<textDigest>`,
   * a JSON array of short strings. Keyed by content like {@link KeyNames.toolEmbedding}.
   */
  toolEnrichment(modelDigest: string, textDigest: string): string;
  /**
   * Pub/sub channel carrying a server id after a warmer stored new example requests for its tools,
   * so workers index them without waiting for a catalog version change.
   */
  readonly toolsEnriched: string;
  /**
   * Model calls of description enrichment spent on one server in one hour window (epoch hours):
   * `P:enrich-budget.<serverId>.<hour>`, a counter every warmer increments, expiring after the window.
   */
  enrichBudget(serverId: string, hour: number): string;
  /**
   * BullMQ's hash of one job: `P:<queue>:<jobId>`, with `P` the queue's BullMQ prefix (a run
   * shard's prefix for `agent-runs` and `approvals`). BullMQ writes it; a script that checks a
   * job's data (the run a decision belongs to) reads it in the job's slot.
   */
  queueJob(queue: QueueName, jobId: string): string;
  /**
   * BullMQ's lock on one active job: `P:<queue>:<jobId>:lock`, holding the token of the worker
   * attempt that runs it. Run writes are fenced by it.
   */
  queueJobLock(queue: QueueName, jobId: string): string;
  /** BullMQ's metadata hash of one queue: `P:<queue>:meta`; it exists once the queue was used. */
  queueMeta(queue: QueueName): string;
  /**
   * BullMQ's events stream of one queue: `P:<queue>:events`, what `QueueEvents` reads. The run
   * store adds a run's `progress` events to it with the step that reports them.
   */
  queueEvents(queue: QueueName): string;
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
    serversVersion: `${prefix}:servers.version`,
    serversChanged: `${prefix}:servers.changed`,
    catalogUpdated: `${prefix}:catalog.updated`,
    run: (runId) => `${prefix}:run.${runId}`,
    runToolResults: (runId) => `${prefix}:run.${runId}:tool-results`,
    runMessages: (runId) => `${prefix}:run.${runId}:messages`,
    runSteps: (runId) => `${prefix}:run.${runId}:steps`,
    runStepAnswer: (runId) => `${prefix}:run.${runId}:step-answer`,
    catalogSnapshot: (serverId, version) => `${server(serverId)}:mcp.snapshot.${serverId}.${version}`,
    decision: (approvalId) => `${prefix}:approval.${approvalId}`,
    pendingApprovals: `${prefix}:approvals.pending`,
    elicitation: (elicitationId) => `${prefix}:elicitation.${elicitationId}`,
    pendingElicitations: `${prefix}:elicitations.pending`,
    runElicitations: (runId) => `${prefix}:run.${runId}:elicitations`,
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
    toolEnrichment: (modelDigest, textDigest) => `${prefix}:enrichment.${modelDigest}.${textDigest}`,
    toolsEnriched: `${prefix}:tools.enriched`,
    enrichBudget: (serverId, hour) => `${prefix}:enrich-budget.${serverId}.${hour}`,
    queueJob: (queue, jobId) => `${prefix}:${queue}:${jobId}`,
    queueJobLock: (queue, jobId) => `${prefix}:${queue}:${jobId}:lock`,
    queueMeta: (queue) => `${prefix}:${queue}:meta`,
    queueEvents: (queue) => `${prefix}:${queue}:events`,
  };
}

/**
 * Every key that holds one run's durable state: its checkpoint (the head, or a single blob written
 * before the step log), its tool-result journal, its step log and the answer of its step in flight.
 * They are expired and deleted together, so a run never keeps one without the others.
 */
export function runStateKeys(
  keys: KeyNames,
  runId: string,
): [checkpoint: string, toolResults: string, messages: string, steps: string, stepAnswer: string] {
  return [
    keys.run(runId),
    keys.runToolResults(runId),
    keys.runMessages(runId),
    keys.runSteps(runId),
    keys.runStepAnswer(runId),
  ];
}

/**
 * Redis key of the per-server refresh lock that a warmer holds while it refreshes `serverId`
 * (a `Lease`: `SET NX PX`, renewed while running, deleted only by its owner). `prefix` is the key
 * prefix (`keyPrefix(config)`).
 */
export function refreshLockKey(prefix: string, serverId: string): string {
  return keyNames(prefix).refreshLock(serverId);
}

/** Whether `key` is one of the deployment's global keys under `prefix` (`<prefix>:…`). */
export function isKeyUnder(prefix: string, key: string): boolean {
  return key.startsWith(`${prefix}:`);
}

/**
 * A candidate hash tag of run shard `index` under the untagged prefix `base`:
 * `{<base>.r<index>-<salt>}` (`runShardTag` picks the salt). The tag is the shard's key prefix:
 * its queues and every key of its runs live under it.
 */
export function runShardScope(base: string, index: number, salt: number): string {
  return `{${base}.r${index}-${salt}}`;
}

/**
 * Keys BullMQ itself keeps, for the few places that must name one. `queueQualifiedName` is
 * `<prefix>:<queue>` (BullMQ's `queue.qualifiedName`, `job.queueQualifiedName`).
 */
export const bullmqKeys = {
  /** The lock an active job's worker holds, whose value is the worker's token: `<prefix>:<queue>:<jobId>:lock`. */
  jobLock: (queueQualifiedName: string, jobId: string): string => `${queueQualifiedName}:${jobId}:lock`,
} as const;
