import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { createCatalogReader, ToolRegistry } from '@agentq/registry';
import {
  createRedisConnection,
  expireRunState,
  keyNames,
  keyPrefix,
  QUEUE_NAMES,
  requestRefresh,
  type Config,
  type Logger,
  type RedisConnection,
} from '@agentq/shared';
import { Queue, Worker } from 'bullmq';
import { createApprovalProcessor } from './approvals/create-approval-processor.js';
import { createDecisionProcessor } from './approvals/create-decision-processor.js';
import { sweepDecidedApprovals } from './approvals/sweep-decided-approvals.js';
import { McpClientPool } from './mcp/mcp-client-pool.js';
import { createModelResolver } from './models/create-model-resolver.js';
import { createRunProcessor } from './run/create-run-processor.js';
import { RunStore } from './run/run-store.js';
import { resolveWorkerTuning, type AgentWorkerTuning } from './worker-options.js';

/** Options of {@link startAgentWorker}. */
export interface AgentWorkerOptions {
  config: Config;
  logger: Logger;
  /**
   * Environment for `${ENV}` placeholders of MCP server definitions (and test crash hooks).
   * @default process.env
   */
  env?: Record<string, string | undefined>;
  /** Worker id, shown in logs. @default `<host>-<pid>-<random>` */
  id?: string;
  /** Lock, stall, pool and sweeper tuning. */
  tuning?: AgentWorkerTuning;
}

/** A running agent worker. */
export interface AgentWorker {
  readonly id: string;
  /**
   * Stops taking jobs, lets active runs finish (or, after `closeTimeoutMs`, releases them to
   * resume elsewhere from their checkpoint), closes the MCP pool and the connections. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Starts an agent worker: it consumes `agent-runs` (runs), `approvals` (approval timeouts and
 * decisions) and `decisions` (decisions sent as jobs), and sweeps decided approvals whose job was
 * never promoted.
 */
export async function startAgentWorker(options: AgentWorkerOptions): Promise<AgentWorker> {
  const { config } = options;
  const id = options.id ?? `${hostname()}-${process.pid}-${randomUUID().slice(0, 8)}`;
  // `role` names the process role; `component` is left to the parts below, so no line carries it twice.
  const logger = options.logger.child({ role: 'agent-worker', workerId: id });
  const env = options.env ?? process.env;
  const tuning = resolveWorkerTuning(options.tuning ?? {}, { config, logger });
  const prefix = keyPrefix({ prefix: config.prefix, cluster: config.cluster });
  const connection: RedisConnection = createRedisConnection({
    url: config.redisUrl,
    role: 'worker',
    cluster: config.cluster,
    name: `agentq-worker-${id}`,
  });
  connection.on('error', (error: Error) => logger.warn({ error: error.message }, 'redis connection error'));

  const queueOptions = { connection, prefix };
  const approvalsQueue = new Queue(QUEUE_NAMES.approvals, queueOptions);
  const refreshQueue = new Queue(QUEUE_NAMES.catalogRefresh, queueOptions);
  const reader = createCatalogReader({
    redis: connection,
    prefix,
    logger,
    // Cache-only: a never-warmed server asks the warmers once and contributes nothing to this run.
    onColdServer: async (serverId) => {
      await requestRefresh(refreshQueue, { serverId, reason: 'first-seen' });
    },
  });
  const pool = new McpClientPool({
    logger,
    env,
    idleMs: tuning.mcpIdleMs,
    allowPrivateFetch: config.allowPrivateFetch,
    allowHosts: config.fetchAllowHosts,
  });
  const store = new RunStore({ redis: connection, prefix, logger });
  const runProcessor = createRunProcessor({
    store,
    redis: connection,
    prefix,
    registry: new ToolRegistry({ logger }),
    reader,
    caller: pool,
    models: createModelResolver({ config }),
    approvalsQueue,
    config,
    logger,
    env,
  });

  const runs = new Worker(QUEUE_NAMES.agentRuns, runProcessor, {
    ...queueOptions,
    concurrency: tuning.concurrency,
    lockDuration: tuning.lockDurationMs,
    stalledInterval: tuning.stalledIntervalMs,
    maxStalledCount: tuning.maxStalledCount,
  });
  const approvals = new Worker(QUEUE_NAMES.approvals, createApprovalProcessor({ redis: connection, prefix, logger }), {
    ...queueOptions,
    concurrency: tuning.approvalConcurrency,
  });
  const decisions = new Worker(
    QUEUE_NAMES.decisions,
    createDecisionProcessor({ redis: connection, prefix, approvalsQueue, logger }),
    { ...queueOptions, concurrency: tuning.approvalConcurrency },
  );
  // A run that failed for good (invalid spec, attempts used up, stalled too often) never writes a
  // final checkpoint: give its checkpoint and journal the finished-run TTL so they do not stay
  // forever. A failed attempt that will be retried is left alone.
  runs.on('failed', (job) => {
    if (!job?.id || (job.finishedOn ?? 0) === 0) return;
    expireRunState({ redis: connection, keys: keyNames(prefix), runId: job.id }).catch((error: Error) =>
      logger.warn({ runId: job.id, error: error.message }, 'could not expire the state of a failed run'),
    );
  });
  for (const worker of [runs, approvals, decisions]) {
    worker.on('error', (error) => logger.error({ queue: worker.name, error: error.message }, 'worker error'));
    worker.on('failed', (job, error) =>
      logger.warn(
        { queue: worker.name, jobId: job?.id, attemptsMade: job?.attemptsMade, error: error.message },
        'job failed',
      ),
    );
  }

  let sweeping = false;
  const sweeper = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweepDecidedApprovals({ redis: connection, prefix, approvalsQueue, logger, graceMs: tuning.sweepGraceMs })
      .catch((error: Error) => logger.warn({ error: error.message }, 'approval sweep failed'))
      .finally(() => {
        sweeping = false;
      });
  }, tuning.sweepIntervalMs);
  sweeper.unref();

  await Promise.all([runs.waitUntilReady(), approvals.waitUntilReady(), decisions.waitUntilReady()]);
  logger.info({ concurrency: tuning.concurrency, prefix }, 'agent worker started');

  let closing: Promise<void> | undefined;
  const step = async (name: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (error) {
      logger.warn({ step: name, error: (error as Error).message }, 'close step failed');
    }
  };
  return {
    id,
    close() {
      closing ??= (async () => {
        clearInterval(sweeper);
        await step('close runs worker', () => closeWithin(runs, tuning.closeTimeoutMs));
        await step('close approvals worker', () => approvals.close());
        await step('close decisions worker', () => decisions.close());
        await step('close MCP pool', () => pool.close());
        await step('close queues', () => Promise.all([approvalsQueue.close(), refreshQueue.close()]));
        await step('close redis', () => connection.quit());
        logger.info('agent worker closed');
      })();
      return closing;
    },
  };
}

async function closeWithin(worker: Worker, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const graceful = worker.close();
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
    timer.unref();
  });
  const outcome = await Promise.race([graceful.then(() => 'closed' as const), timedOut]);
  clearTimeout(timer);
  // Still busy: release the runs. Their locks lapse and another worker resumes them from the
  // checkpoint of their last finished step.
  if (outcome === 'timeout') await worker.close(true);
}
