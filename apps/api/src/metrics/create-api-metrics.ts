import type { Job, Queue } from 'bullmq';
import {
  approvalJobSchema,
  approvalResultSchema,
  definitionHash,
  kbIngestJobSchema,
  kbIngestResultSchema,
  refreshJobSchema,
  runResultSchema,
  SERVER_CATALOG_STATES,
  serverCatalogStateOf,
  type Logger,
} from '@agentq/shared';
import { CatalogStore, ServerStore, type RedisConnection } from '@agentq/store';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { FinishedJobFeed } from './finished-job-feed.js';

/** Options of {@link createApiMetrics}. */
export interface ApiMetricsOptions {
  redis: RedisConnection;
  /** Key prefix, hash-tagged under cluster mode. */
  prefix: string;
  /**
   * The queues, by name: `agent-runs`, `approvals`, `catalog-refresh`, `decisions`, `kb-ingest`; `agent-runs`
   * and `approvals` once per run shard. Counts are summed over the shards.
   */
  queues: Record<string, Queue | Queue[]>;
  logger: Logger;
}

/** The Prometheus registry of the API and the scrape that fills it. */
export interface ApiMetrics {
  registry: Registry;
  /** Reads Redis and BullMQ, then renders the exposition text. */
  render(): Promise<string>;
}

const seconds = (ms: number) => Math.max(0, ms) / 1000;

/**
 * Metrics gathered at scrape time from Redis and BullMQ rather than from in-process events, so
 * they are right whichever process ran the job and even when the API runs alone.
 */
export function createApiMetrics(options: ApiMetricsOptions): ApiMetrics {
  const registry = new Registry();
  const store = new ServerStore({ redis: options.redis, prefix: options.prefix, logger: options.logger });
  const catalog = new CatalogStore({ redis: options.redis, prefix: options.prefix, logger: options.logger });
  const queueJobs = new Gauge({
    name: 'agentq_queue_jobs',
    help: 'Jobs per queue and state',
    labelNames: ['queue', 'state'],
    registers: [registry],
  });
  const runsTotal = new Counter({
    name: 'agentq_runs_total',
    help: 'Finished runs by outcome (completed or failed)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const runDuration = new Histogram({
    name: 'agentq_run_duration_seconds',
    help: 'Enqueue to finish of completed runs, approval waits included',
    buckets: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 1800, 3600, 86400],
    registers: [registry],
  });
  const runSteps = new Histogram({
    name: 'agentq_run_steps',
    help: 'Model steps of completed runs',
    buckets: [1, 2, 3, 5, 8, 13, 21, 50, 100, 200],
    registers: [registry],
  });
  const toolTokens = new Counter({
    name: 'agentq_tool_tokens_total',
    help: 'Tokens of tool definitions per run: sent inline versus deferred behind the meta tools',
    labelNames: ['exposure'],
    registers: [registry],
  });
  const runTokens = new Counter({
    name: 'agentq_run_tokens_total',
    help: 'Model tokens of completed runs: input, output, and the input read from or written to the prompt cache',
    labelNames: ['kind'],
    registers: [registry],
  });
  const approvalsTotal = new Counter({
    name: 'agentq_approvals_total',
    help: 'Finished approvals by outcome (approved, denied, expired)',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const approvalWait = new Histogram({
    name: 'agentq_approval_wait_seconds',
    help: 'Time from approval request to decision or expiry',
    buckets: [1, 5, 15, 60, 300, 900, 3600, 14400, 86400],
    registers: [registry],
  });
  const refreshTotal = new Counter({
    name: 'agentq_catalog_refresh_total',
    help: 'Finished catalog refreshes per server and outcome',
    labelNames: ['server', 'outcome'],
    registers: [registry],
  });
  const refreshDuration = new Histogram({
    name: 'agentq_catalog_refresh_duration_seconds',
    help: 'Duration of catalog refreshes per server',
    labelNames: ['server'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60],
    registers: [registry],
  });
  const catalogAge = new Gauge({
    name: 'agentq_catalog_age_seconds',
    help: 'Age of the cached tool list per server (absent when never warmed)',
    labelNames: ['server'],
    registers: [registry],
  });
  const catalogTools = new Gauge({
    name: 'agentq_catalog_tools',
    help: 'Cached tools per server',
    labelNames: ['server'],
    registers: [registry],
  });
  const catalogState = new Gauge({
    name: 'agentq_catalog_state',
    help: `Catalog state per server (1 for the current state: ${SERVER_CATALOG_STATES.join(', ')})`,
    labelNames: ['server', 'state'],
    registers: [registry],
  });

  const kbChunks = new Counter({
    name: 'agentq_kb_ingested_chunks_total',
    help: 'Chunks written by finished knowledge base ingests, per knowledge base',
    labelNames: ['kb'],
    registers: [registry],
  });
  const kbIngests = new Counter({
    name: 'agentq_kb_ingests_total',
    help: 'Finished knowledge base ingests per knowledge base and outcome (updated, unchanged, failed)',
    labelNames: ['kb', 'outcome'],
    registers: [registry],
  });

  const queuesNamed = (name: string): Queue[] => [options.queues[name] ?? []].flat();
  const feedsOf = (name: string, state: 'completed' | 'failed') =>
    queuesNamed(name).map((queue) => new FinishedJobFeed(options.redis, queue, state));
  const feeds = {
    runsCompleted: feedsOf('agent-runs', 'completed'),
    runsFailed: feedsOf('agent-runs', 'failed'),
    approvals: feedsOf('approvals', 'completed'),
    refreshCompleted: feedsOf('catalog-refresh', 'completed'),
    refreshFailed: feedsOf('catalog-refresh', 'failed'),
    kbCompleted: feedsOf('kb-ingest', 'completed'),
    kbFailed: feedsOf('kb-ingest', 'failed'),
  };
  const drain = async (from: FinishedJobFeed[]): Promise<Job[]> =>
    (await Promise.all(from.map((feed) => feed.next()))).flat();

  async function collectQueues(): Promise<void> {
    queueJobs.reset();
    for (const name of Object.keys(options.queues)) {
      const totals = new Map<string, number>();
      for (const queue of queuesNamed(name)) {
        const counts = await queue.getJobCounts(
          'waiting',
          'active',
          'delayed',
          'waiting-children',
          'prioritized',
          'completed',
          'failed',
        );
        for (const [state, count] of Object.entries(counts)) totals.set(state, (totals.get(state) ?? 0) + count);
      }
      for (const [state, count] of totals) queueJobs.set({ queue: name, state }, count);
    }
  }

  async function collectRuns(): Promise<void> {
    for (const job of await drain(feeds.runsCompleted)) {
      runsTotal.inc({ outcome: 'completed' });
      if (job.finishedOn) runDuration.observe(seconds(job.finishedOn - job.timestamp));
      const result = runResultSchema.safeParse(job.returnvalue);
      if (!result.success) continue;
      runSteps.observe(result.data.steps.length);
      const usage = result.data.usage;
      runTokens.inc({ kind: 'input' }, usage.inputTokens);
      runTokens.inc({ kind: 'output' }, usage.outputTokens);
      runTokens.inc({ kind: 'cache_read' }, usage.cacheReadInputTokens ?? 0);
      runTokens.inc({ kind: 'cache_creation' }, usage.cacheCreationInputTokens ?? 0);
      if (result.data.tools) {
        toolTokens.inc({ exposure: 'inline' }, result.data.tools.inlineTokens);
        toolTokens.inc({ exposure: 'deferred' }, result.data.tools.deferredTokens);
      }
    }
    const failed = await drain(feeds.runsFailed);
    if (failed.length > 0) runsTotal.inc({ outcome: 'failed' }, failed.length);
  }

  async function collectApprovals(): Promise<void> {
    for (const job of await drain(feeds.approvals)) {
      const result = approvalResultSchema.safeParse(job.returnvalue);
      if (!result.success) continue;
      const outcome = result.data.outcome === 'expired' ? 'expired' : result.data.approved ? 'approved' : 'denied';
      approvalsTotal.inc({ outcome });
      const data = approvalJobSchema.safeParse(job.data);
      const requestedAt = data.success ? data.data.requestedAt : job.timestamp;
      const decidedAt = result.data.decidedAt ?? job.finishedOn ?? Date.now();
      approvalWait.observe(seconds(decidedAt - requestedAt));
    }
  }

  async function collectRefreshes(): Promise<void> {
    const completed = await drain(feeds.refreshCompleted);
    const failed = await drain(feeds.refreshFailed);
    for (const [jobs, failedJobs] of [
      [completed, false],
      [failed, true],
    ] as const) {
      for (const job of jobs) {
        const data = refreshJobSchema.safeParse(job.data);
        const server = data.success ? data.data.serverId : 'unknown';
        const returned = job.returnvalue as { state?: unknown; outcome?: unknown } | null | undefined;
        const outcome = failedJobs
          ? 'failed'
          : typeof returned?.outcome === 'string'
            ? returned.outcome
            : typeof returned?.state === 'string'
              ? returned.state
              : 'completed';
        refreshTotal.inc({ server, outcome });
        if (job.processedOn && job.finishedOn) {
          refreshDuration.observe({ server }, seconds(job.finishedOn - job.processedOn));
        }
      }
    }
  }

  async function collectKbIngests(): Promise<void> {
    for (const job of await drain(feeds.kbCompleted)) {
      const result = kbIngestResultSchema.safeParse(job.returnvalue);
      if (!result.success) continue;
      kbIngests.inc({ kb: result.data.kb, outcome: result.data.status });
      if (result.data.chunks > 0) kbChunks.inc({ kb: result.data.kb }, result.data.chunks);
    }
    for (const job of await drain(feeds.kbFailed)) {
      const data = kbIngestJobSchema.safeParse(job.data);
      kbIngests.inc({ kb: data.success ? data.data.kb : 'unknown', outcome: 'failed' });
    }
  }

  async function collectCatalog(): Promise<void> {
    catalogAge.reset();
    catalogTools.reset();
    catalogState.reset();
    const servers = await store.list();
    if (servers.length === 0) return;
    const records = await catalog.readMany(servers.map((server) => server.id));
    servers.forEach((server, index) => {
      const { entry, status, corrupt } = records[index] ?? { entry: null, status: null, corrupt: false };
      const current = entry?.success && entry.data.definitionHash === definitionHash(server) ? entry.data : null;
      if (current) {
        catalogAge.set({ server: server.id }, seconds(Date.now() - current.refreshedAt));
        catalogTools.set({ server: server.id }, current.tools.length);
      }
      const state = serverCatalogStateOf({
        definition: server,
        entry: current,
        status: status?.success ? status.data : null,
        corrupt,
      });
      catalogState.set({ server: server.id, state }, 1);
    });
  }

  let scraping: Promise<void> | undefined;
  return {
    registry,
    async render() {
      // Concurrent scrapes share one collection, so a finished job is never counted twice.
      scraping ??= (async () => {
        try {
          for (const collect of [
            collectQueues,
            collectRuns,
            collectApprovals,
            collectRefreshes,
            collectKbIngests,
            collectCatalog,
          ]) {
            try {
              await collect();
            } catch (error) {
              options.logger.warn({ error: (error as Error).message, part: collect.name }, 'metrics collection failed');
            }
          }
        } finally {
          scraping = undefined;
        }
      })();
      await scraping;
      return await registry.metrics();
    },
  };
}
