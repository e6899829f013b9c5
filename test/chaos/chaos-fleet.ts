import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { runResultSchema, type RunResult } from '@agentq/shared';
import { keyNames, ServerStore } from '@agentq/store';
import { Redis } from 'ioredis';
import { fixtureStdioTransport, readCounterNotes, tsxLoaderUrl } from '../fixtures/mcp/spawn-fixture.js';
import { repositoryRoot } from '../warmer/warmer-harness.js';

/** Size and pace of one chaos run. */
export interface ChaosOptions {
  runs: number;
  /** Share of runs whose tool call needs an approval. @default 1/3 */
  gatedShare?: number;
  /** kill -9 of a random worker or warmer this many times. */
  kills: number;
  /** Pause between kills, in ms (random in [min, max]). @default [3000, 6000] */
  killEveryMs?: [number, number];
  /** Restart Redis once, after this share of the kills. @default 0.5 */
  redisRestartAfterKill?: number;
  /** How long every run may take to settle at the end, in ms. @default 600000 */
  settleTimeoutMs?: number;
  /** Runs enqueued per second. @default 50 */
  enqueuePerSecond?: number;
  /** Progress lines go here. @default nothing */
  log?: (line: string) => void;
  /** Seed of the random choices (decisions, latencies, victims). @default Date.now() */
  seed?: number;
}

type Plan = 'free' | 'approve' | 'deny' | 'expire';

/** What a chaos run found; the goals are zeros in `lost*`, `duplicated` and `wrongState`. */
export interface ChaosReport {
  runs: number;
  completed: number;
  denied: number;
  expired: number;
  /** Runs that never finished, or failed. */
  lostRuns: string[];
  toolCallsRun: number;
  /** Calls cut by a kill: the model was told it may or may not have happened. */
  interrupted: number;
  /** Tool call ids executed more than once. */
  duplicated: string[];
  /** Decisions the API accepted that the run does not show. */
  lostApprovals: string[];
  /** Runs whose final state is not what their decision implies. */
  wrongState: Array<{ runId: string; plan: Plan; why: string }>;
  kills: Array<{ role: 'worker' | 'warmer'; recoveryMs: number | null }>;
  redisRestart: { downMs: number; recoveryMs: number | null } | null;
  seconds: number;
}

const apiToken = 'chaos-token-0123456789abcdef';
const counterTool = 'mcp__fx__counterIncrement';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A small deterministic generator, so a failing seed can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

// Ports this process handed out in the last minute: a port is free until whoever asked binds it, so
// two calls in a row (Redis's port, then the API's) would otherwise both get the first free one.
const handedOut = new Map<number, number>();
const HANDED_OUT_MS = 60_000;

/** A free port in 7200-7299, the range of private Redis servers and APIs of chaos runs and benchmarks. */
export async function freePrivatePort(): Promise<number> {
  for (let port = 7200 + Math.floor(Math.random() * 100), tries = 0; tries < 100; tries += 1) {
    const candidate = 7200 + ((port + tries - 7200) % 100);
    if (Date.now() - (handedOut.get(candidate) ?? -Infinity) < HANDED_OUT_MS) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      handedOut.set(candidate, Date.now());
      return candidate;
    }
  }
  throw new Error('no free port in 7200-7299');
}

interface Child {
  role: 'worker' | 'warmer' | 'api' | 'redis';
  process: ChildProcess;
  exited: Promise<void>;
}

/**
 * Runs a fleet of real processes (2 warmers, 3 workers, 1 API) on a private `redis-server` with
 * AOF, pushes `options.runs` runs through it while killing workers and warmers with SIGKILL and
 * restarting Redis once, decides the gated runs at random over REST, and checks every run against
 * what its decision implies. Never touches the shared Redis.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const log = options.log ?? (() => undefined);
  const rand = random(options.seed ?? Date.now());
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)] as T;
  const folder = await mkdtemp(join(tmpdir(), 'agentq-chaos-'));
  const counterFile = join(folder, 'counter.log');
  const redisPort = await freePrivatePort();
  const apiPort = await freePrivatePort();
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const prefix = 'chaos';
  const children = new Set<Child>();
  const started = Date.now();
  let keep = false;

  const spawnChild = (role: Child['role'], command: string, args: string[], env: NodeJS.ProcessEnv): Child => {
    const out = createWriteStream(join(folder, `${role}.log`), { flags: 'a' });
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'], cwd: repositoryRoot });
    child.stdout?.pipe(out);
    child.stderr?.pipe(out);
    const entry: Child = {
      role,
      process: child,
      exited: new Promise((resolve) => child.once('exit', () => resolve())),
    };
    children.add(entry);
    void entry.exited.then(() => children.delete(entry));
    return entry;
  };

  const startRedis = () =>
    spawnChild(
      'redis',
      'redis-server',
      [
        '--port',
        String(redisPort),
        '--bind',
        '127.0.0.1',
        '--dir',
        folder,
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--save',
        '',
        '--maxmemory-policy',
        'noeviction',
      ],
      process.env,
    );

  const roleEnv: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: redisUrl,
    AGENTQ_PREFIX: prefix,
    AGENTQ_API_TOKEN: apiToken,
    AGENTQ_API_PORT: String(apiPort),
    AGENTQ_API_HOST: '127.0.0.1',
    AGENTQ_WORKER_CONCURRENCY: '50',
    AGENTQ_RUN_LOCK_MS: '4000',
    AGENTQ_RUN_STALLED_INTERVAL_MS: '2000',
    AGENTQ_RUN_MAX_STALLED: '1000',
    AGENTQ_WATCH_LEASE_MS: '5000',
    LOG_LEVEL: 'warn',
  };
  const startRole = (role: 'worker' | 'warmer' | 'api') =>
    spawnChild(role, process.execPath, ['--import', tsxLoaderUrl, join('apps', 'cli', 'src', 'bin.ts'), role], roleEnv);

  let redisChild = startRedis();
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
  redis.on('error', () => undefined);
  let client: AgentqClient | undefined;
  const report: ChaosReport = {
    runs: options.runs,
    completed: 0,
    denied: 0,
    expired: 0,
    lostRuns: [],
    toolCallsRun: 0,
    interrupted: 0,
    duplicated: [],
    lostApprovals: [],
    wrongState: [],
    kills: [],
    redisRestart: null,
    seconds: 0,
  };
  try {
    await waitUntil(async () => (await redis.ping().catch(() => '')) === 'PONG', 30_000, 'redis');
    await new ServerStore({ redis, prefix }).put({
      id: 'fx',
      transport: fixtureStdioTransport({ counterFile }),
      // The fixture starts through tsx: on a loaded machine that alone can take longer than 10 s.
      timeouts: { connectMs: 60_000, listMs: 60_000, callMs: 60_000 },
    });
    const warmers = [startRole('warmer'), startRole('warmer')];
    const workers = [startRole('worker'), startRole('worker'), startRole('worker')];
    startRole('api');
    const keys = keyNames(prefix);
    await waitUntil(async () => (await redis.exists(keys.tools('fx'))) === 1, 120_000, 'fx warmed');
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitUntil(async () => (await fetch(`${apiUrl}/healthz`).catch(() => null))?.ok === true, 120_000, 'api');
    log(`fleet up after ${Math.round((Date.now() - started) / 1000)} s`);
    client = createAgentqClient({ redisUrl, prefix });

    // Plans: a third gated; of those, decisions at random, some never decided (they expire).
    const plans = new Map<string, Plan>();
    for (let index = 0; index < options.runs; index += 1) {
      const gated = rand() < (options.gatedShare ?? 1 / 3);
      plans.set(`chaos-${index}`, gated ? pick<Plan>(['approve', 'approve', 'deny', 'expire']) : 'free');
    }
    const accepted = new Map<string, boolean>();
    const decided = new Set<string>();
    let stop = false;

    const enqueue = (async () => {
      const perTick = Math.max(1, Math.round((options.enqueuePerSecond ?? 50) / 10));
      const runIds = [...plans.keys()];
      const delays: Array<[number, number]> = [];
      for (let index = 0; index < runIds.length;) {
        const runId = runIds[index] as string;
        const plan = plans.get(runId) as Plan;
        // Drawn once per run: a retry after a Redis blip must send the very same spec.
        const latencies = (delays[index] ??= [50 + Math.floor(rand() * 251), 50 + Math.floor(rand() * 251)]);
        try {
          await client?.enqueueRun(
            {
              assistant: {
                model: 'scripted:chaos',
                mcpServers: ['fx'],
                script: [
                  { toolCalls: [{ toolName: counterTool, input: { note: runId } }], delayMs: latencies[0] },
                  { text: 'done', delayMs: latencies[1] },
                ],
              },
              input: { prompt: 'count once' },
              approval:
                plan === 'free' ? { requireFor: [] } : { requireFor: ['fx:counter_increment'], timeoutMs: 20_000 },
            },
            { runId },
          );
          index += 1;
          if (index % perTick === 0) await sleep(100);
        } catch {
          await sleep(200); // Redis restarting: try the same run again (same id, same spec: idempotent)
        }
      }
    })();

    const decide = (async () => {
      while (!stop) {
        try {
          const response = await fetch(`${apiUrl}/v1/approvals`, { headers: { authorization: `Bearer ${apiToken}` } });
          const body = (await response.json()) as { approvals?: Array<{ approvalId: string; runId: string }> };
          for (const approval of body.approvals ?? []) {
            if (decided.has(approval.approvalId)) continue;
            const plan = plans.get(approval.runId);
            if (plan !== 'approve' && plan !== 'deny') continue;
            decided.add(approval.approvalId);
            // Decisions arrive at random, up to 3 s after the request shows up.
            void sleep(Math.floor(rand() * 3_000)).then(async () => {
              for (let attempt = 0; attempt < 50; attempt += 1) {
                const answer = await fetch(`${apiUrl}/v1/approvals/${approval.approvalId}/decision`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${apiToken}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ approved: plan === 'approve' }),
                }).catch(() => null);
                if (answer?.status === 200 || answer?.status === 409) {
                  accepted.set(approval.runId, plan === 'approve');
                  return;
                }
                if (answer?.status === 410) return;
                await sleep(250);
              }
            });
          }
        } catch {
          // API or Redis briefly away
        }
        await sleep(300);
      }
    })();

    // kill -9 of random workers and warmers; each is replaced at once, so the fleet keeps its size.
    const restartAt = Math.floor(options.kills * (options.redisRestartAfterKill ?? 0.5));
    const [minPause, maxPause] = options.killEveryMs ?? [3_000, 6_000];
    for (let kill = 0; kill < options.kills; kill += 1) {
      await sleep(minPause + Math.floor(rand() * (maxPause - minPause)));
      if (kill === restartAt && report.redisRestart === null) {
        const downAt = Date.now();
        redisChild.process.kill('SIGTERM');
        await redisChild.exited;
        await sleep(1_000);
        redisChild = startRedis();
        await waitUntil(async () => (await redis.ping().catch(() => '')) === 'PONG', 60_000, 'redis back');
        const downMs = Date.now() - downAt;
        const recoveryMs = await timeProbeRun(client, `probe-redis`, 120_000);
        report.redisRestart = { downMs, recoveryMs };
        log(`redis restarted: down ${downMs} ms, a new run completed ${recoveryMs} ms after it answered`);
      }
      const role = rand() < 0.7 ? 'worker' : 'warmer';
      const pool = role === 'worker' ? workers : warmers;
      const victimIndex = Math.floor(rand() * pool.length);
      const victim = pool[victimIndex] as Child;
      const active = await activeRuns(redis, prefix);
      victim.process.kill('SIGKILL');
      await victim.exited;
      const killedAt = Date.now();
      pool[victimIndex] = startRole(role);
      const recoveryMs =
        role === 'worker'
          ? await timeWorkerRecovery(redis, prefix, active, killedAt, 120_000)
          : await timeWarmerRecovery(redis, prefix, client, killedAt, 120_000);
      report.kills.push({ role, recoveryMs });
      log(`kill ${kill + 1}: ${role}, recovered in ${recoveryMs === null ? 'never' : `${recoveryMs} ms`}`);
    }
    await enqueue;

    // Settle: every run finished (completed or failed), bounded generously.
    const deadline = Date.now() + (options.settleTimeoutMs ?? 600_000);
    const results = new Map<string, RunResult>();
    const failed = new Set<string>();
    while (Date.now() < deadline) {
      for (const runId of plans.keys()) {
        if (results.has(runId) || failed.has(runId)) continue;
        const run = await client.getRun(runId).catch(() => null);
        if (run?.state === 'completed' && run.result) results.set(runId, runResultSchema.parse(run.result));
        if (run?.state === 'failed') failed.add(runId);
      }
      if (results.size + failed.size === plans.size) break;
      log(`settling: ${results.size + failed.size}/${plans.size} finished`);
      await sleep(2_000);
    }
    stop = true;
    await decide;

    // Check every run against its plan and against the tool's own record of executions.
    const notes = await readCounterNotes(counterFile);
    const executions = new Map<string, number>();
    for (const note of notes) executions.set(note, (executions.get(note) ?? 0) + 1);
    report.toolCallsRun = notes.filter((note) => plans.has(note)).length;
    report.duplicated = [...executions].filter(([, count]) => count > 1).map(([note]) => note);
    for (const [runId, plan] of plans) {
      const result = results.get(runId);
      if (!result) {
        report.lostRuns.push(runId);
        continue;
      }
      report.completed += 1;
      const call = result.toolCalls[0];
      const ran = executions.get(runId) ?? 0;
      const interrupted = call?.isError === true && /did not finish/.test(JSON.stringify(call));
      if (interrupted) report.interrupted += 1;
      const approval = call?.approval;
      if (approval && !approval.approved && approval.reason === 'expired') report.expired += 1;
      else if (approval && !approval.approved) report.denied += 1;
      const wrong = (why: string) => report.wrongState.push({ runId, plan, why });
      if (plan === 'free' || (plan === 'approve' && accepted.get(runId) === true)) {
        if (ran !== 1 && !(interrupted && ran <= 1)) wrong(`tool ran ${ran} times`);
        if (plan === 'approve' && approval?.approved !== true) {
          report.lostApprovals.push(runId);
          wrong('approved, but the run shows no approval');
        }
      } else if (plan === 'deny' && accepted.get(runId) === false) {
        if (ran !== 0) wrong(`denied tool ran ${ran} times`);
        if (approval?.approved !== false || approval.reason === 'expired') {
          report.lostApprovals.push(runId);
          wrong('denied, but the run does not show the denial');
        }
      } else {
        // Never decided (or decided too late): it must have expired, as denied.
        if (ran !== 0) wrong(`undecided tool ran ${ran} times`);
        if (approval?.approved !== false) wrong('undecided, but not denied');
      }
    }
    report.seconds = Math.round((Date.now() - started) / 1000);
    return report;
  } catch (error) {
    keep = true;
    log(`logs kept in ${folder}`);
    throw error;
  } finally {
    await client?.close().catch(() => undefined);
    redis.disconnect();
    for (const child of [...children]) child.process.kill('SIGKILL');
    await Promise.all([...children].map((child) => child.exited));
    if (!keep) await rm(folder, { recursive: true, force: true });
  }
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`chaos: timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Active runs with the time they (last) started. */
async function activeRuns(redis: Redis, prefix: string): Promise<Map<string, string>> {
  const ids = await redis.lrange(`${prefix}:agent-runs:active`, 0, -1).catch(() => [] as string[]);
  const out = new Map<string, string>();
  for (const id of ids) out.set(id, (await redis.hget(`${prefix}:agent-runs:${id}`, 'processedOn')) ?? '');
  return out;
}

/**
 * Time from a worker's kill until every run that was active then has left `active` or been
 * started again (taken over from its checkpoint by another worker).
 */
async function timeWorkerRecovery(
  redis: Redis,
  prefix: string,
  active: Map<string, string>,
  killedAt: number,
  timeoutMs: number,
): Promise<number | null> {
  const waiting = new Map(active);
  while (Date.now() - killedAt < timeoutMs) {
    const now = await activeRuns(redis, prefix);
    for (const [id, processedOn] of waiting) {
      if (!now.has(id) || now.get(id) !== processedOn) waiting.delete(id);
    }
    if (waiting.size === 0) return Date.now() - killedAt;
    await sleep(100);
  }
  return null;
}

/** Time from a warmer's kill until a refresh asked for right after it has been done. */
async function timeWarmerRecovery(
  redis: Redis,
  prefix: string,
  client: AgentqClient | undefined,
  killedAt: number,
  timeoutMs: number,
): Promise<number | null> {
  const key = keyNames(prefix).status('fx');
  await client?.refreshServer('fx').catch(() => undefined);
  while (Date.now() - killedAt < timeoutMs) {
    const status = JSON.parse((await redis.get(key).catch(() => null)) ?? '{}') as { lastAttemptAt?: number };
    if ((status.lastAttemptAt ?? 0) > killedAt) return Date.now() - killedAt;
    await sleep(100);
  }
  return null;
}

/** Time until a fresh ungated run completes. */
async function timeProbeRun(
  client: AgentqClient | undefined,
  runId: string,
  timeoutMs: number,
): Promise<number | null> {
  const startedAt = Date.now();
  while (Date.now() - startedAt < timeoutMs) {
    try {
      await client?.enqueueRun(
        { assistant: { model: 'scripted:probe', script: [{ text: 'ok' }] }, input: { prompt: 'probe' } },
        { runId },
      );
      break;
    } catch {
      await sleep(200);
    }
  }
  while (Date.now() - startedAt < timeoutMs) {
    const run = await client?.getRun(runId).catch(() => null);
    if (run?.state === 'completed') return Date.now() - startedAt;
    await sleep(100);
  }
  return null;
}

/** The report as the table `npm run chaos` prints. */
export function formatChaosReport(report: ChaosReport, options: { seed?: number } = {}): string {
  const recovery = report.kills.map(
    (kill) => `${kill.role} ${kill.recoveryMs === null ? 'never' : `${kill.recoveryMs} ms`}`,
  );
  const rows: Array<[string, string, string]> = [
    ['runs', String(report.runs), ''],
    ['runs completed', String(report.completed), ''],
    ['  of which denied', String(report.denied), ''],
    ['  of which expired', String(report.expired), ''],
    ['runs lost', String(report.lostRuns.length), 'goal 0'],
    ['tool calls run', String(report.toolCallsRun), ''],
    ['tool calls interrupted', String(report.interrupted), ''],
    ['tool calls duplicated', String(report.duplicated.length), 'goal 0'],
    ['approvals lost', String(report.lostApprovals.length), 'goal 0'],
    ['runs in a wrong state', String(report.wrongState.length), 'goal 0'],
    ['kills', String(report.kills.length), ''],
    ['recovery after each kill', recovery.join(', '), ''],
    [
      'redis restart',
      report.redisRestart
        ? `down ${report.redisRestart.downMs} ms, next run done ${report.redisRestart.recoveryMs ?? 'never'} ms later`
        : 'none',
      '',
    ],
    ['seconds', String(report.seconds), ''],
  ];
  const width = Math.max(...rows.map((row) => row[0].length));
  const lines = rows.map(([name, value, goal]) => `${name.padEnd(width)}  ${value}${goal ? `  (${goal})` : ''}`);
  for (const wrong of report.wrongState.slice(0, 10))
    lines.push(`  wrong: ${wrong.runId} (${wrong.plan}): ${wrong.why}`);
  if (options.seed !== undefined) lines.push(`seed ${options.seed}`);
  return lines.join('\n');
}
