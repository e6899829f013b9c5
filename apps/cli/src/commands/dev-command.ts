import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { startApi, type RunningApi } from '@agentq/api';
import { startCatalogWarmer, type CatalogWarmer } from '@agentq/catalog-warmer';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { startIndexer, type Indexer } from '@agentq/indexer';
import { openKnowledgeBaseReader } from '@agentq/kb';
import {
  AgentqError,
  createLogger,
  loadConfig,
  runSpecLimitsOf,
  secretValuesOf,
  serverPolicyOf,
  startTelemetry,
  type Config,
} from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { demoRunSpec } from '../dev/demo-run-spec.js';
import { findRedis, type DevRedis } from '../dev/find-redis.js';
import { kbDemoRunSpec, SAMPLE_KB } from '../dev/kb-demo-run-spec.js';
import { pickDefaultModel } from '../dev/pick-default-model.js';
import { waitForShutdown } from '../dev/wait-for-shutdown.js';
import { EXIT_CODES } from '../exit-codes.js';
import { cliInvocation } from '../output/cli-invocation.js';

/** Options of `agentq dev`. */
export interface DevCommandOptions {
  /** API port. @default AGENTQ_API_PORT or 3000 */
  port?: string;
  /** Import the servers file at start. @default true */
  import: boolean;
  /**
   * Enqueue a demo run once everything is up: `true` for the approval demo, `'kb'` for the
   * knowledge base demo. @default false
   */
  demo: boolean | string;
  /**
   * Create the sample knowledge base `agentq-docs` and queue the repository's `docs/` folder into
   * it (a no-op by digest once ingested). @default true
   */
  sampleKb?: boolean;
  /** Folder the filesystem MCP server may touch; created at start. @default ./sandbox */
  sandbox: string;
  /** Resolves to stop (tests); SIGINT/SIGTERM otherwise. */
  until?: Promise<unknown>;
}

/** The repository's docs folder: the sample knowledge base's content. */
const DOCS_FOLDER = fileURLToPath(new URL('../../../../docs/', import.meta.url));

/**
 * `agentq dev`: warmer, worker, indexer and API in one process on a local Redis, with the shipped
 * MCP servers imported, the sample knowledge base queued, a generated token, and private-address
 * fetches allowed for the local demo.
 */
export async function devCommand(io: CliIo, options: DevCommandOptions): Promise<number> {
  if (options.demo !== true && options.demo !== false && options.demo !== 'kb') {
    throw new AgentqError({
      code: 'USAGE',
      field: 'demo',
      message: `unknown demo "${options.demo}" (use --demo or --demo kb)`,
    });
  }
  const redis = await findRedis(io.env);
  const generatedToken = !io.env.AGENTQ_API_TOKEN;
  const env: Record<string, string | undefined> = {
    ...io.env,
    REDIS_URL: redis.url,
    AGENTQ_API_TOKEN: io.env.AGENTQ_API_TOKEN || randomBytes(24).toString('base64url'),
    AGENTQ_MODEL: pickDefaultModel(io.env),
    AGENTQ_ALLOW_PRIVATE_FETCH: io.env.AGENTQ_ALLOW_PRIVATE_FETCH || 'true',
    AGENTQ_API_PORT: options.port ?? io.env.AGENTQ_API_PORT,
    // Three roles log into one terminal: keep it to problems unless asked, so the banner stays readable.
    LOG_LEVEL: io.env.LOG_LEVEL || 'warn',
  };
  const started: Array<{ name: string; close: () => Promise<void>; role?: boolean }> = [
    { name: 'redis', close: () => redis.stop() },
  ];
  const close = async (part: { name: string; close: () => Promise<void> }) => {
    try {
      await part.close();
    } catch (error) {
      io.err(`warning: closing ${part.name} failed: ${(error as Error).message}`);
    }
  };
  // The three roles stop together: each marks itself stopping at once, so MCP servers that the
  // terminal's Ctrl-C stopped alongside this process are not reported as failures by a role still
  // waiting its turn. Then the shared client, then Redis.
  const stopAll = async () => {
    await Promise.all(started.filter((part) => part.role).map(close));
    for (const part of started.filter((part) => !part.role).reverse()) await close(part);
  };
  try {
    const sandbox = resolve(options.sandbox);
    await mkdir(sandbox, { recursive: true });
    // The shipped servers file points the memory and filesystem servers at ${AGENTQ_SECRET_SANDBOX}:
    // only AGENTQ_SECRET_* (and AGENTQ_SECRET_NAMES) resolve in definitions. The older
    // AGENTQ_SANDBOX is still honoured as the folder to use.
    env.AGENTQ_SECRET_SANDBOX = io.env.AGENTQ_SECRET_SANDBOX || io.env.AGENTQ_SANDBOX || sandbox;
    const config = loadConfig(env);
    const logger = createLogger({ level: config.logLevel, name: 'agentq-dev', secretValues: secretValuesOf(config) });
    const telemetry = await startTelemetry({ serviceName: 'agentq-dev', logger, env });
    started.push({ name: 'telemetry', close: () => telemetry.shutdown() });

    const client = createAgentqClient({
      redisUrl: config.redisUrl,
      prefix: config.prefix,
      cluster: config.cluster,
      clusterNodes: config.clusterNodes,
      runShards: config.runShards,
      runAttempts: config.runAttempts,
      runSpecLimits: runSpecLimitsOf(config),
      logger,
      // The API below shares this client: its putServer must follow the policy of `env`.
      serverPolicy: serverPolicyOf(config),
    });
    started.push({ name: 'client', close: () => client.close() });
    const imported = options.import ? await importServers({ io, client, config }) : [];

    const warmer: CatalogWarmer = await startCatalogWarmer({ config, logger, env });
    started.push({ name: 'warmer', close: () => warmer.close(), role: true });
    const knowledgeBases = openKnowledgeBaseReader({ config, logger });
    started.push({ name: 'kb reader', close: () => knowledgeBases.close() });
    const worker: AgentWorker = await startAgentWorker({
      config,
      logger,
      env,
      knowledgeBaseReader: knowledgeBases.reader,
    });
    started.push({ name: 'worker', close: () => worker.close(), role: true });
    const indexer: Indexer = await startIndexer({ config, logger });
    started.push({ name: 'indexer', close: () => indexer.close(), role: true });
    if (options.sampleKb ?? true) await queueSampleKb({ io, client });
    const api: RunningApi = await startApi({ config, logger, client });
    started.push({ name: 'api', close: () => api.close(), role: true });

    io.out(banner({ api, config, redis, imported, generatedToken, env: io.env }));
    if (options.demo === 'kb') {
      // kb_search reads Redis only: let the indexer finish the first ingest of the docs first.
      await waitForKbVersion(client, SAMPLE_KB, 60_000);
      const { runId } = await client.enqueueRun(kbDemoRunSpec(config.defaultModel));
      io.out(`Enqueued the knowledge base demo run ${runId}. Follow it at ${api.url}/admin/runs/${runId}\n`);
    } else if (options.demo) {
      // Runs read the catalog from the cache only: give the warmer its first listing of the demo
      // server before the demo asks for its tools.
      await waitForWarmCatalog(client, 'everything', 30_000);
      const { runId } = await client.enqueueRun(demoRunSpec(config.defaultModel));
      io.out(`Enqueued the demo run ${runId}. Follow it at ${api.url}/admin/runs/${runId}\n`);
    }
    await (options.until ?? waitForShutdown());
    io.out('Stopping…');
    return EXIT_CODES.ok;
  } finally {
    await stopAll();
  }
}

async function waitForWarmCatalog(client: AgentqClient, serverId: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await client.getCatalog(serverId)).state !== 'never-warmed') return;
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function waitForKbVersion(client: AgentqClient, kb: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await client.getKb(kb)).version > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Creates `agentq-docs` once and queues the docs folder into it at every start: the indexer skips
 * documents whose digest did not change, so later starts cost a read of each file and no writes.
 */
async function queueSampleKb(options: { io: CliIo; client: AgentqClient }): Promise<void> {
  if (!existsSync(DOCS_FOLDER)) return;
  try {
    await options.client.createKb({
      name: SAMPLE_KB,
      description: "agentq's own documentation (sample knowledge base)",
    });
  } catch (error) {
    if (!AgentqError.isInstance(error) || error.code !== 'CONFLICT') throw error;
  }
  try {
    await options.client.addKbSource(SAMPLE_KB, { path: DOCS_FOLDER });
  } catch (error) {
    options.io.err(`warning: could not queue the sample knowledge base: ${(error as Error).message}`);
  }
}

async function importServers(options: { io: CliIo; client: AgentqClient; config: Config }): Promise<string[]> {
  const path = options.config.serversFile;
  if (!existsSync(path)) {
    options.io.err(`warning: no servers file at ${path}; nothing imported (set AGENTQ_SERVERS_FILE)`);
    return [];
  }
  const definitions = await options.client.importServers(path);
  return definitions.map((definition) => definition.id);
}

function banner(options: {
  api: RunningApi;
  config: Config;
  redis: DevRedis;
  imported: string[];
  generatedToken: boolean;
  env: Record<string, string | undefined>;
}): string {
  const { api, config, redis } = options;
  const shellEnv: string[] = [];
  if (redis.url !== 'redis://127.0.0.1:6379') shellEnv.push(`REDIS_URL=${redis.url}`);
  if (config.prefix !== 'agentq') shellEnv.push(`AGENTQ_PREFIX=${config.prefix}`);
  const agentq = cliInvocation(options.env);
  const next = `${shellEnv.length > 0 ? `${shellEnv.join(' ')} ` : ''}${agentq} run --demo --wait`;
  const redisNote = redis.source === 'private' ? 'private redis-server, stopped on exit' : redis.source;
  return [
    '',
    'agentq dev is running: catalog warmer, agent worker, indexer and API in this process.',
    '',
    `  Inbox        ${api.url}/admin/approvals`,
    `  Bull Board   ${api.url}/admin/queues`,
    `  REST API     ${api.url}/v1  (OpenAPI: ${api.url}/v1/openapi.json)`,
    `  Metrics      ${api.url}/metrics`,
    `  API token    ${config.apiToken}${options.generatedToken ? '  (generated; set AGENTQ_API_TOKEN to choose one)' : ''}`,
    `  Redis        ${redis.url} (${redisNote}), prefix ${config.prefix}`,
    `  Model        ${config.defaultModel}`,
    `  Knowledge    ${SAMPLE_KB} (the docs folder; try \`npm run agentq -- kb search ${SAMPLE_KB} approval\`)`,
    `  MCP servers  ${options.imported.length > 0 ? `${options.imported.join(', ')} (from ${config.serversFile})` : 'none imported'}`,
    '',
    'Next: log in to the inbox with the token, then in another terminal start the demo run:',
    '',
    `  ${next}`,
    '',
    'It pauses for approval of an `echo` call: approve it in the inbox (or with',
    `\`${agentq} approvals approve <id>\`) and watch it finish. Stop with Ctrl-C.`,
    '',
  ].join('\n');
}
