import { createHash } from 'node:crypto';
import {
  AgentqError,
  definitionHash,
  maskServerError,
  type Logger,
  type RefreshReason,
  type ServerChangeEvent,
  type ServerDefinition,
} from '@agentq/shared';
import {
  countLiveWarmers,
  keyNames,
  Lease,
  type CatalogStore,
  type KeyNames,
  type RedisConnection,
  type ServerStore,
  type SessionGenerationReader,
} from '@agentq/store';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { messageOf, prepareServerConnection, type McpConnection, type MessageByteLimit } from '@agentq/mcp-connect';
import { type OAuthTokenStore } from '@agentq/store';
import type { RefreshSchedules } from '../schedule/refresh-schedules.js';
import { limitConcurrency, type ConcurrencyLimit } from './limit-concurrency.js';

/** Options of {@link WatchCoordinator}. */
export interface WatchCoordinatorOptions {
  redis: RedisConnection;
  prefix: string;
  warmerId: string;
  /** Definitions; read on every tick (give it a silent logger: corrupt ones are reported elsewhere). */
  store: ServerStore;
  schedules: RefreshSchedules;
  /** TTL of a watcher lease. */
  leaseTtlMs: number;
  /** A warmer whose heartbeat is older than this does not count as live. */
  livenessMs: number;
  logger: Logger;
  env: Record<string, string | undefined>;
  registerSecrets: (values: readonly string[]) => void;
  allowPrivateNetwork: boolean;
  /** Hosts allowed on private addresses (`AGENTQ_FETCH_ALLOW_HOSTS`). @default [] */
  allowHosts?: readonly string[];
  /** Most bytes of an MCP server's HTTP error answer read (`AGENTQ_ERROR_BODY_MAX_BYTES`). @default 8192 */
  errorBodyMaxBytes?: number;
  /**
   * Cap on one message a server over HTTP sends (see `listMessageLimit`): lists are read over the
   * watcher's session too. @default no limit
   */
  messageLimit?: MessageByteLimit;
  /**
   * OAuth for servers with an `auth` block (the encrypted token store of `AGENTQ_SECRET_KEY`).
   * Unset: such servers are refused with `OAUTH_KEY_MISSING`.
   */
  oauth?: { store: OAuthTokenStore };
  /**
   * Watcher connections opened at once: a warmer that claims hundreds of servers at start must
   * not spawn hundreds of stdio servers together, nor starve its own refreshes. @default 4
   */
  connectConcurrency?: number;
  /** `tools.listChanged` support learned by refreshes, to skip probe connections. */
  capabilities?: Pick<CatalogStore, 'readCapability'>;
  /**
   * Called with reason `list-changed` for every `tools/list_changed` on a watcher session of this
   * warmer and for the catch-up after it subscribes. The warmer reads over that session itself
   * (it is the owner) and enqueues the queue job as the fallback; see `startCatalogWarmer`.
   */
  requestRefresh: (request: { serverId: string; reason: RefreshReason; requestedAt?: number }) => Promise<void>;
  /**
   * Records a failed watcher connect in the server's status (`stale` or `error`, the masked error,
   * `lastAttemptAt`), so that a server whose watcher cannot reconnect shows as failing on the first
   * failed attempt, to operators and to the model. `definitionHash` is the definition the watcher
   * tried. @default none
   */
  recordConnectFailure?: (failure: {
    serverId: string;
    definitionHash: string;
    error: string;
    code?: string;
  }) => Promise<void>;
  /**
   * Whether a server's status still says it needs authorization (`auth-required`/`auth-failed`)
   * for this definition. A watcher refused for want of authorization is not retried on its backoff;
   * it reconnects once this says no (an operator's refresh got through), or on a restart, an enable
   * or an edit. @default none (such a watcher waits for a restart or an edit)
   */
  authStillRequired?: (server: { serverId: string; definitionHash: string }) => Promise<boolean>;
  /**
   * Session generations (`restartServer` bumps one): a watcher whose session is older than its
   * server's generation closes it and opens a new one. @default none (sessions live until they break)
   */
  sessions?: SessionGenerationReader;
}

type Mode = 'starting' | 'watching' | 'polling' | 'idle' | 'broken';

interface OwnedServer {
  serverId: string;
  definitionHash: string;
  mode: Mode;
  connection: McpConnection | undefined;
  /** Bumped on every (re)start and stop, so a slow start that lost the race cleans up after itself. */
  generation: number;
  failures: number;
  retryAt: number;
  /** The last connect was refused for want of authorization: no backoff retry. */
  authBlocked: boolean;
  /** The session generation the current (or last) connect was made under. */
  sessionGeneration: string | undefined;
  /** The background connect of this start. */
  started: Promise<void> | undefined;
  /** A restart asked for by a newer session generation, while it runs. */
  renewing: Promise<void> | undefined;
}

const MAX_RECONNECT_WAIT_MS = 60_000;

/**
 * Owns the long-lived side of the catalog: one `tools/list_changed` watcher per enabled server
 * across all warmers, or its polling schedule when the server cannot notify.
 *
 * Ownership is a Redis lease per server (a {@link Lease} on `keyNames().watchLease`), renewed on every tick while this
 * warmer lives. Each warmer holds at most its fair share, `ceil(enabled servers / live warmers)`,
 * and prefers servers by rendezvous hashing of `(warmer id, server id)`, so claims rarely collide
 * and the split stays stable as warmers come and go. When a warmer dies its leases lapse after
 * `leaseTtlMs` and its heartbeat leaves the live count at the same time, so the others' shares grow
 * and they claim the orphans on their next tick.
 *
 * The owner connects, reads the capabilities and then either keeps the connection and turns each
 * notification into a `list-changed` refresh read over this very connection (the session the
 * notification belongs to; other warmers hand their refreshes of the server to the owner too), or
 * closes it and keeps a job scheduler for
 * `refreshIntervalMs`. A watcher that connects asks for one catch-up `list-changed` refresh, since
 * the list may have changed before it subscribed. Connections never block a tick: they start in the
 * background, and a broken one is retried with backoff while the lease is kept.
 *
 * The watcher is often the first to learn that a server is gone, and the only one to try it again
 * soon: every failed connect (the first reconnect after its session closed included) is recorded
 * in the server's status at once (`recordConnectFailure`), and the list read over the next session
 * it opens records success again. A restart asks for a new session: the server's session generation
 * (`sessions`) moved past the one the watcher connected under, so it closes its session and opens
 * another, on its next tick or before a refresh borrows the session ({@link renewSession}).
 */
export class WatchCoordinator {
  private readonly options: WatchCoordinatorOptions;
  private readonly keys: KeyNames;
  private readonly logger: Logger;
  private readonly connectLimit: ConcurrencyLimit;
  private readonly owned = new Map<string, OwnedServer>();
  private readonly starting = new Set<Promise<void>>();
  private readonly ranks = new Map<string, string>();
  private ticking: Promise<void> | undefined;
  private closed = false;

  constructor(options: WatchCoordinatorOptions) {
    this.options = options;
    this.logger = options.logger.child({ component: 'watch' });
    this.keys = keyNames(options.prefix);
    this.connectLimit = limitConcurrency(options.connectConcurrency ?? 4);
  }

  /** The watcher lease of a server, renewed by {@link runTick} rather than a timer of its own. */
  private lease(serverId: string): Lease {
    return new Lease({
      redis: this.options.redis,
      key: this.keys.watchLease(serverId),
      owner: this.options.warmerId,
      ttlMs: this.options.leaseTtlMs,
      renewEveryMs: false,
      logger: this.logger.child({ serverId }),
    });
  }

  /** Servers whose lease this warmer holds, and what it does with each. */
  snapshot(): { owned: string[]; watching: string[]; polling: string[] } {
    const all = [...this.owned.values()];
    const ids = (mode?: Mode) =>
      all
        .filter((server) => mode === undefined || server.mode === mode)
        .map((server) => server.serverId)
        .sort();
    return { owned: ids(), watching: ids('watching'), polling: ids('polling') };
  }

  /** The live watcher client of a server, when this warmer holds one for that definition. */
  connectionFor(serverId: string, hash: string): Client | undefined {
    const server = this.owned.get(serverId);
    if (server?.mode !== 'watching' || server.definitionHash !== hash) return undefined;
    return server.connection?.client;
  }

  /**
   * Brings this warmer's watcher of a server up to the server's session generation before its
   * session is borrowed: when a restart asked for a new session since it connected, the watcher
   * closes its session and opens a new one (a new process for stdio), and this waits for that
   * connect (bounded by the server's connect timeout). Does nothing for a server this warmer does
   * not watch under `hash`.
   */
  async renewSession(serverId: string, hash: string): Promise<void> {
    const server = this.owned.get(serverId);
    if (!server || server.definitionHash !== hash || !this.options.sessions) return;
    if (server.mode !== 'watching' && server.mode !== 'broken') return;
    if ((await this.options.sessions.current(serverId)) === server.sessionGeneration) return;
    const definition = await this.options.store.get(serverId);
    if (!definition?.enabled || definitionHash(definition) !== hash) return;
    await this.renew(server, definition, { wait: true });
  }

  /** Renews, rebalances and repairs leases and watchers. Runs one at a time; never waits on MCP. */
  tick(): Promise<void> {
    this.ticking ??= this.runTick().finally(() => {
      this.ticking = undefined;
    });
    return this.ticking;
  }

  /** Reacts to a `servers.changed` event for an owned server. */
  async serverChanged(event: ServerChangeEvent): Promise<void> {
    if (this.closed) return;
    if (event.type === 'remove' || event.type === 'disabled') {
      if (this.owned.has(event.serverId)) await this.stop(event.serverId, { release: true });
      return;
    }
    const server = this.owned.get(event.serverId);
    if (!server) return;
    const definition = await this.options.store.get(event.serverId);
    if (!definition?.enabled) {
      await this.stop(event.serverId, { release: true });
      return;
    }
    // A new command line or URL needs a new connection; other edits may change the poll interval.
    await this.restart(server, definition);
  }

  /** Stops every watcher and releases every lease. Each step runs even if another fails. */
  /**
   * Marks the watchers as shutting down, at once and without waiting: a watched stdio server that
   * a terminal's Ctrl-C stopped together with this process then ends quietly instead of being
   * reported as down and reconnected while the warmer waits for its running refreshes.
   */
  beginClose(): void {
    this.closed = true;
  }

  async close(): Promise<void> {
    this.closed = true;
    try {
      await this.ticking;
    } catch {
      // a failed tick has nothing left to clean
    }
    await Promise.allSettled([...this.starting]);
    await Promise.allSettled([...this.owned.keys()].map((serverId) => this.stop(serverId, { release: true })));
  }

  private async runTick(): Promise<void> {
    if (this.closed) return;
    await this.dropLostLeases();
    const enabled = (await this.options.store.list()).filter((definition) => definition.enabled);
    const byId = new Map(enabled.map((definition) => [definition.id, definition]));
    for (const serverId of [...this.owned.keys()]) {
      if (!byId.has(serverId)) await this.stop(serverId, { release: true });
    }
    await this.rebalance(enabled);
    await this.repair(byId);
  }

  /** Renews every lease held; stops the watchers whose lease another warmer took meanwhile. */
  private async dropLostLeases(): Promise<void> {
    const leases = [...this.owned.keys()].map((serverId) => ({ serverId, lease: this.lease(serverId) }));
    if (leases.length === 0) return;
    const lost = new Set(
      await Lease.renewAll(
        this.options.redis,
        leases.map((each) => each.lease),
      ),
    );
    for (const { serverId, lease } of leases) {
      if (!lost.has(lease)) continue;
      this.logger.warn({ serverId }, 'watcher lease lost; another warmer owns it now');
      await this.stop(serverId, { release: false });
    }
  }

  /** Holds this warmer's fair share of the enabled servers: hands the excess over, claims the rest. */
  private async rebalance(enabled: readonly ServerDefinition[]): Promise<void> {
    const live = await countLiveWarmers({
      redis: this.options.redis,
      prefix: this.options.prefix,
      livenessMs: this.options.livenessMs,
    });
    const share = Math.ceil(enabled.length / live);
    const ranked = [...enabled].sort((a, b) => (this.rank(a.id) < this.rank(b.id) ? -1 : 1));
    if (this.owned.size > share) {
      const excess = ranked.filter((definition) => this.owned.has(definition.id)).slice(share);
      for (const definition of excess) {
        this.logger.info({ serverId: definition.id, share, live }, 'handing a watcher over to rebalance');
        await this.stop(definition.id, { release: true });
      }
    }
    if (this.owned.size < share && !this.closed) {
      await this.claim(
        ranked.filter((definition) => !this.owned.has(definition.id)),
        share,
      );
    }
  }

  /** Claims free leases among `candidates`, best ranked first, until this warmer holds `share`. */
  private async claim(candidates: readonly ServerDefinition[], share: number): Promise<void> {
    const holders = await Lease.holders(
      this.options.redis,
      candidates.map((definition) => this.keys.watchLease(definition.id)),
    );
    for (const [index, definition] of candidates.entries()) {
      if (this.owned.size >= share || this.closed) break;
      if (holders[index] !== null) continue;
      if (await this.lease(definition.id).acquire()) {
        this.logger.info({ serverId: definition.id }, 'watcher lease claimed');
        this.start(definition);
      }
    }
  }

  /** Restarts watchers whose definition or session moved, and broken ones whose backoff is over. */
  private async repair(byId: ReadonlyMap<string, ServerDefinition>): Promise<void> {
    const renewed = await this.outdatedSessions();
    const cleared = await this.authCleared();
    const now = Date.now();
    for (const server of [...this.owned.values()]) {
      const definition = byId.get(server.serverId);
      if (!definition || this.owned.get(server.serverId) !== server) continue;
      const changed = definitionHash(definition) !== server.definitionHash;
      if (!changed && renewed.has(server)) await this.renew(server, definition, { wait: false });
      else if (changed || (server.mode === 'broken' && (server.retryAt <= now || cleared.has(server)))) {
        await this.restart(server, definition);
      }
    }
  }

  /** Watchers refused for want of authorization whose server's status no longer says so. */
  private async authCleared(): Promise<Set<OwnedServer>> {
    const check = this.options.authStillRequired;
    const blocked = [...this.owned.values()].filter((server) => server.mode === 'broken' && server.authBlocked);
    if (!check || blocked.length === 0) return new Set();
    const still = await Promise.all(blocked.map((server) => check(server).catch(() => true)));
    return new Set(blocked.filter((_server, index) => !still[index]));
  }

  /**
   * Watchers whose session is older than their server's session generation. A restart that some
   * warmer other than the owner handled (or whose refresh found no watcher session) still reaches
   * the watcher here, within a tick; a broken watcher reconnects at once instead of after its backoff.
   */
  private async outdatedSessions(): Promise<Set<OwnedServer>> {
    const sessions = this.options.sessions;
    // A watcher that failed before it read a generation has nothing to compare: its backoff rules.
    const candidates = [...this.owned.values()].filter(
      (server) => (server.mode === 'watching' || server.mode === 'broken') && server.sessionGeneration !== undefined,
    );
    if (!sessions || candidates.length === 0) return new Set();
    const generations = await Promise.all(candidates.map((server) => sessions.current(server.serverId)));
    return new Set(candidates.filter((server, index) => generations[index] !== server.sessionGeneration));
  }

  /** Restarts a watcher for a new session generation, once however many ask; optionally waits for its connect. */
  private async renew(server: OwnedServer, definition: ServerDefinition, options: { wait: boolean }): Promise<void> {
    server.renewing ??= (async () => {
      this.logger.info({ serverId: server.serverId }, 'new session asked for; reconnecting the watcher');
      // A restart is an operator asking for a new session now, not a failure: no backoff wait.
      server.failures = 0;
      await this.restart(server, definition);
    })();
    await server.renewing;
    if (options.wait) await this.owned.get(server.serverId)?.started;
  }

  private rank(serverId: string): string {
    let rank = this.ranks.get(serverId);
    if (rank === undefined) {
      rank = createHash('sha1').update(`${this.options.warmerId}\0${serverId}`).digest('hex');
      this.ranks.set(serverId, rank);
    }
    return rank;
  }

  private start(definition: ServerDefinition, previous?: OwnedServer): void {
    const server: OwnedServer = {
      serverId: definition.id,
      definitionHash: definitionHash(definition),
      mode: 'starting',
      connection: undefined,
      generation: (previous?.generation ?? 0) + 1,
      failures: previous?.failures ?? 0,
      retryAt: 0,
      authBlocked: false,
      sessionGeneration: previous?.sessionGeneration,
      started: undefined,
      renewing: undefined,
    };
    this.owned.set(definition.id, server);
    const run: Promise<void> = this.watch(server, definition).finally(() => this.starting.delete(run));
    server.started = run;
    this.starting.add(run);
  }

  private async restart(server: OwnedServer, definition: ServerDefinition): Promise<void> {
    const connection = server.connection;
    server.connection = undefined;
    server.generation += 1;
    await connection?.close();
    if (this.closed || this.owned.get(server.serverId) !== server) return;
    this.start(definition, server);
  }

  private async stop(serverId: string, options: { release: boolean }): Promise<void> {
    const server = this.owned.get(serverId);
    this.owned.delete(serverId);
    if (server) {
      server.generation += 1;
      const connection = server.connection;
      server.connection = undefined;
      try {
        await connection?.close();
      } catch (error) {
        this.logger.warn({ serverId, error }, 'closing watcher connection failed');
      }
    }
    // Never throws: a lease that cannot be released lapses.
    if (options.release) await this.lease(serverId).release();
  }

  private current(server: OwnedServer, generation: number): boolean {
    return !this.closed && server.generation === generation && this.owned.get(server.serverId) === server;
  }

  private async watch(server: OwnedServer, definition: ServerDefinition): Promise<void> {
    const generation = server.generation;
    let connection: McpConnection | undefined;
    try {
      if ((await this.knownListChanged(server, definition, generation)) === false) {
        await this.poll(server, definition, generation);
        return;
      }
      if (!this.current(server, generation)) return;
      connection = await this.connect(server, definition, generation);
      if (!connection) return;
      if (!this.current(server, generation)) {
        await connection.close();
        return;
      }
      if (connection.capabilities?.tools?.listChanged) {
        await this.subscribe(server, connection);
        return;
      }
      await connection.close();
      connection = undefined;
      server.failures = 0;
      await this.poll(server, definition, generation);
    } catch (error) {
      if (!this.current(server, generation)) {
        await connection?.close();
        return;
      }
      this.broken(server, generation, messageOf(error), isAuthRefusal(error));
    }
  }

  /**
   * Opens the watcher's session, at most `connectConcurrency` at once; `undefined` when the watcher
   * was stopped or restarted while it waited. A failed connect is recorded in the status, then thrown.
   */
  private async connect(
    server: OwnedServer,
    definition: ServerDefinition,
    generation: number,
  ): Promise<McpConnection | undefined> {
    const prepared = prepareServerConnection({
      definition,
      env: this.options.env,
      onSecretValues: (secretValues) => this.options.registerSecrets(secretValues),
    });
    // Read before connecting: a restart that lands during the connect asks for one more.
    server.sessionGeneration = await this.options.sessions?.current(server.serverId);
    return await this.connectLimit(async () => {
      if (!this.current(server, generation)) return undefined;
      try {
        return await prepared.connect({
          logger: this.logger.child({ serverId: server.serverId }),
          oauth: this.options.oauth,
          clientName: 'agentq-catalog-warmer',
          allowPrivateNetwork: this.options.allowPrivateNetwork,
          allowHosts: this.options.allowHosts,
          errorBodyMaxBytes: this.options.errorBodyMaxBytes,
          messageLimit: this.options.messageLimit,
          onUnexpectedClose: () => this.broken(server, generation, 'connection closed'),
        });
      } catch (error) {
        if (this.current(server, generation)) {
          await this.recordConnectFailure(server, {
            error: maskServerError(messageOf(error), prepared.secretValues),
            code: AgentqError.isInstance(error) ? error.code : undefined,
          });
        }
        throw error;
      }
    });
  }

  /**
   * Keeps the session as the server's watcher: each `tools/list_changed` becomes a `list-changed`
   * refresh, and one catch-up refresh follows at once.
   */
  private async subscribe(server: OwnedServer, connection: McpConnection): Promise<void> {
    const serverId = server.serverId;
    const logger = this.logger.child({ serverId });
    connection.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
      logger.debug('tools/list_changed received');
      try {
        await this.options.requestRefresh({ serverId, reason: 'list-changed', requestedAt: Date.now() });
      } catch (error) {
        logger.error({ error }, 'could not enqueue list-changed refresh');
      }
    });
    server.connection = connection;
    server.mode = 'watching';
    server.failures = 0;
    logger.info({ transport: connection.transport }, 'watching tools/list_changed');
    // Catch-up: a change made before the handler was installed sent a notification nobody
    // heard. A refresh that starts from now on sees it. It is a forced reason, so it is never
    // skipped as fresh or dropped behind a background refresh that read the list earlier.
    const subscribedAt = Date.now();
    await this.options.schedules.remove(serverId);
    await this.options.requestRefresh({ serverId, reason: 'list-changed', requestedAt: subscribedAt });
  }

  /**
   * Whether the server supports `tools/list_changed`, as its last successful refresh saw it.
   * Right after a claim (typically at start, while the prewarm is still reading the server) it
   * waits a little for that answer rather than opening a probe connection of its own.
   */
  private async knownListChanged(
    server: OwnedServer,
    definition: ServerDefinition,
    generation: number,
  ): Promise<boolean | undefined> {
    const capabilities = this.options.capabilities;
    if (!capabilities) return undefined;
    const deadline = Date.now() + Math.min(10_000, definition.timeouts.connectMs + definition.timeouts.listMs);
    for (;;) {
      const known = await capabilities.readCapability(server.serverId, server.definitionHash);
      if (known) return known.listChanged;
      if (Date.now() >= deadline || !this.current(server, generation)) return undefined;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  private async poll(server: OwnedServer, definition: ServerDefinition, generation: number): Promise<void> {
    const logger = this.logger.child({ serverId: server.serverId });
    if (definition.refreshIntervalMs !== undefined) {
      await this.options.schedules.ensure(definition);
      if (this.current(server, generation)) server.mode = 'polling';
      logger.info({ everyMs: definition.refreshIntervalMs }, 'no list_changed support; polling on a schedule');
    } else {
      await this.options.schedules.remove(server.serverId);
      if (this.current(server, generation)) server.mode = 'idle';
      logger.info('no list_changed support and no refreshIntervalMs; refreshed on request only');
    }
  }

  /**
   * The watcher is the one process that learns first that a watched server is gone (its session
   * closes, its reconnect fails), and nothing else may try the server for minutes: the status says
   * so now. Never throws: a failed record only delays what the next refresh records.
   */
  private async recordConnectFailure(server: OwnedServer, failure: { error: string; code?: string }): Promise<void> {
    if (!this.options.recordConnectFailure) return;
    try {
      await this.options.recordConnectFailure({
        serverId: server.serverId,
        definitionHash: server.definitionHash,
        ...failure,
      });
    } catch (recordError) {
      this.logger.warn(
        { serverId: server.serverId, error: recordError },
        'could not record the failed watcher connect',
      );
    }
  }

  private broken(server: OwnedServer, generation: number, reason: string, authRefused = false): void {
    if (!this.current(server, generation)) return;
    server.failures += 1;
    server.mode = 'broken';
    const connection = server.connection;
    server.connection = undefined;
    void connection?.close();
    if (authRefused) {
      // Retrying cannot help until someone supplies credentials: wait for an operator instead.
      server.authBlocked = true;
      server.retryAt = Number.POSITIVE_INFINITY;
      this.logger.warn(
        { serverId: server.serverId, error: reason },
        'watcher refused for want of authorization; not retried until an operator refreshes, restarts or edits the server',
      );
      return;
    }
    const wait = Math.min(MAX_RECONNECT_WAIT_MS, 1_000 * 2 ** Math.min(server.failures - 1, 10));
    server.retryAt = Date.now() + wait;
    this.logger.warn({ serverId: server.serverId, error: reason, retryInMs: wait }, 'watcher down; will reconnect');
  }
}

function isAuthRefusal(error: unknown): boolean {
  return AgentqError.isInstance(error) && (error.code === 'MCP_AUTH_REQUIRED' || error.code === 'MCP_AUTH_FAILED');
}
