import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { startApi, type RunningApi } from '@agentq/api';
import { startCatalogWarmer, type CatalogWarmer } from '@agentq/catalog-warmer';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { startIndexer, type Indexer } from '@agentq/indexer';
import { openKnowledgeBaseReader } from '@agentq/kb';
import { createEmbedder } from '@agentq/models';
import {
  AgentqError,
  assertPortsFree,
  createLogger,
  loadConfig,
  maskRedisUrl,
  runSpecLimitsOf,
  secretValuesOf,
  serverPolicyOf,
  startTelemetry,
  waitForShutdown,
  type Config,
  type ListenTarget,
} from '@agentq/shared';
import { inspectRedis, type RedisInspection } from '@agentq/store';
import type { CliIo } from '../cli-io.js';
import { demoRunSpec } from '../dev/demo-run-spec.js';
import { loadDevToken, type DevToken } from '../dev/dev-token.js';
import { findRedis, type DevRedis } from '../dev/find-redis.js';
import { kbDemoRunSpec, SAMPLE_KB } from '../dev/kb-demo-run-spec.js';
import { pickDefaultModel } from '../dev/pick-default-model.js';
import { EXIT_CODES } from '../exit-codes.js';
import { cliInvocation } from '../output/cli-invocation.js';
import { shellEnvPrefix } from '../output/shell-env-prefix.js';

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
  /** `--redis <url>`: the Redis to use (wins over `REDIS_URL`). */
  redis?: string;
  /** `--private-redis`: start a throwaway `redis-server` even when one answers on 6379. @default false */
  privateRedis?: boolean;
  /** `--rotate-token`: replace the kept dev token with a new one. @default false */
  rotateToken?: boolean;
  /** Folder of the kept dev token. @default ./.agentq */
  stateDir?: string;
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
  const redis = await findRedis({ env: io.env, url: options.redis, private: options.privateRedis });
  let devToken: DevToken | undefined;
  try {
    devToken = io.env.AGENTQ_API_TOKEN
      ? undefined
      : await loadDevToken({ dir: resolve(options.stateDir ?? '.agentq'), rotate: options.rotateToken });
  } catch (error) {
    await redis.stop();
    throw error;
  }
  const env: Record<string, string | undefined> = {
    ...io.env,
    REDIS_URL: redis.url,
    AGENTQ_API_TOKEN: io.env.AGENTQ_API_TOKEN || devToken?.token,
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
    // Before anything is written: every port this process will listen on must be free, so that a
    // busy one fails the start with Redis untouched.
    await assertPortsFree(listenTargets(config));
    // Before anything is written: say which Redis this is, and warn when it holds someone else's keys.
    const inspection: RedisInspection = await inspectRedis({ url: redis.url, keyPrefix: config.keyPrefix }).catch(
      () => ({ complete: false }),
    );
    if ((inspection.otherKeys ?? 0) > 0) {
      io.err(
        `warning: the Redis at ${maskRedisUrl(redis.url)} holds ${inspection.complete ? '' : 'at least '}${inspection.otherKeys} keys that are not agentq's (prefix ${config.keyPrefix}); agentq dev adds its servers, queues and sample knowledge base beside them. Use --private-redis for a throwaway Redis, or --redis <url> for another one.`,
      );
    }
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
    // The API holds its port before anything is written: a busy port changes nothing in Redis.
    const api: RunningApi = await startApi({ config, logger, client });
    started.push({ name: 'api', close: () => api.close(), role: true });
    const imported = options.import ? await importServers({ io, client, config }) : [];

    const warmer: CatalogWarmer = await startCatalogWarmer({ config, logger, env });
    started.push({ name: 'warmer', close: () => warmer.close(), role: true });
    const knowledgeBases = openKnowledgeBaseReader({ config, logger, embedder: createEmbedder(config) });
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
    const sampleKb = (options.sampleKb ?? true) && (await queueSampleKb({ io, client }));

    io.out(banner({ api, config, redis, inspection, imported, sampleKb, devToken, env: io.env }));
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

/** The ports `agentq dev` listens on: the API's, and the health listeners' when they are set. */
function listenTargets(config: Config): ListenTarget[] {
  const targets: ListenTarget[] = [
    {
      what: 'API',
      host: config.apiHost,
      port: config.apiPort,
      hostVariable: 'AGENTQ_API_HOST',
      portVariable: '--port or AGENTQ_API_PORT',
    },
  ];
  if (config.warmerHealthPort !== undefined)
    targets.push({
      what: 'catalog-warmer health listener',
      host: config.healthHost,
      port: config.warmerHealthPort,
      hostVariable: 'AGENTQ_HEALTH_HOST',
      portVariable: 'AGENTQ_WARMER_HEALTH_PORT',
    });
  if (config.workerHealthPort !== undefined)
    targets.push({
      what: 'agent-worker health listener',
      host: config.healthHost,
      port: config.workerHealthPort,
      hostVariable: 'AGENTQ_HEALTH_HOST',
      portVariable: 'AGENTQ_WORKER_HEALTH_PORT',
    });
  return targets;
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
 * Resolves to whether the docs folder was queued.
 */
async function queueSampleKb(options: { io: CliIo; client: AgentqClient }): Promise<boolean> {
  if (!existsSync(DOCS_FOLDER)) return false;
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
    return true;
  } catch (error) {
    options.io.err(`warning: could not queue the sample knowledge base: ${(error as Error).message}`);
    return false;
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

function describeRedisChoice(redis: DevRedis, inspection: RedisInspection): string {
  const source = {
    '--redis': 'from --redis',
    REDIS_URL: 'from REDIS_URL',
    local: 'found on 127.0.0.1:6379',
    private: 'private redis-server, no persistence, stopped on exit',
  }[redis.source];
  const version = inspection.version ? `Redis ${inspection.version}` : 'version unknown';
  const others =
    inspection.otherKeys === undefined
      ? 'other keys not counted'
      : inspection.otherKeys === 0
        ? 'no other keys'
        : `${inspection.complete ? '' : 'at least '}${inspection.otherKeys} other keys`;
  return `${maskRedisUrl(redis.url)} (${source}; ${version}; ${others})`;
}

function describeToken(config: Config, devToken: DevToken | undefined): string {
  if (!devToken) return `${config.apiToken}  (from AGENTQ_API_TOKEN)`;
  const where = relative(process.cwd(), devToken.path) || devToken.path;
  const how = { kept: 'kept in', generated: 'new, saved in', rotated: 'rotated, saved in' }[devToken.source];
  return `${devToken.token}  (${how} ${where}; --rotate-token for a new one)`;
}

function banner(options: {
  api: RunningApi;
  config: Config;
  redis: DevRedis;
  inspection: RedisInspection;
  imported: string[];
  /** Whether the sample knowledge base was queued at this start. */
  sampleKb: boolean;
  devToken: DevToken | undefined;
  env: Record<string, string | undefined>;
}): string {
  const { api, config, redis } = options;
  // Every suggested command reaches this Redis and prefix, and links to this API's pages.
  const agentq = `${shellEnvPrefix({ redisUrl: redis.url, prefix: config.prefix, apiUrl: api.url })}${cliInvocation(options.env)}`;
  return [
    '',
    'agentq dev is running: catalog warmer, agent worker, indexer and API in this process.',
    '',
    `  Inbox        ${api.url}/admin/approvals`,
    `  Bull Board   ${api.url}/admin/queues`,
    `  REST API     ${api.url}/v1  (OpenAPI: ${api.url}/v1/openapi.json)`,
    `  Metrics      ${api.url}/metrics`,
    `  API token    ${describeToken(config, options.devToken)}`,
    `  Redis        ${describeRedisChoice(redis, options.inspection)}, prefix ${config.prefix}`,
    `  Model        ${config.defaultModel}`,
    ...(options.sampleKb
      ? [`  Knowledge    ${SAMPLE_KB} (the docs folder; try \`${agentq} kb search ${SAMPLE_KB} approval\`)`]
      : []),
    `  MCP servers  ${options.imported.length > 0 ? `${options.imported.join(', ')} (from ${config.serversFile})` : 'none imported'}`,
    '',
    'For curl in another terminal:',
    '',
    `  export TOKEN=${config.apiToken}`,
    '',
    'Next: log in to the inbox with the token, then in another terminal start the demo run:',
    '',
    `  ${agentq} run --demo --wait`,
    '',
    'It pauses for approval of an `echo` call: approve it in the inbox (or with',
    `\`${agentq} approvals approve <id>\`) and watch it finish. Stop with Ctrl-C.`,
    '',
  ].join('\n');
}
