import { randomUUID } from 'node:crypto';
import { startAgentWorker } from '@agentq/agent-worker';
import { defaultRunJobOptions, loadConfig, QUEUE_NAMES, runSpecSchema, silentLogger } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { putServer, writeCatalogEntry } from '../../test/worker/helpers/catalog.js';
import type { BenchFigure, BenchSuite } from '../bench-types.js';

/** Bytes held by every key under `prefix`, by key kind, from `MEMORY USAGE` (exact: SAMPLES 0). */
async function memoryByKind(redis: Redis, prefix: string): Promise<Map<string, { keys: number; bytes: number }>> {
  const kinds = new Map<string, { keys: number; bytes: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1_000);
    cursor = next;
    if (keys.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', 0);
    const results = (await pipeline.exec()) ?? [];
    keys.forEach((key, index) => {
      const bytes = Number(results[index]?.[1] ?? 0);
      const kind = kindOf(key.slice(prefix.length + 1));
      const entry = kinds.get(kind) ?? { keys: 0, bytes: 0 };
      entry.keys += 1;
      entry.bytes += bytes;
      kinds.set(kind, entry);
    });
  } while (cursor !== '0');
  return kinds;
}

function kindOf(rest: string): string {
  if (rest.startsWith('run.')) return rest.endsWith(':tool-results') ? 'run tool results' : 'run checkpoint';
  if (rest.startsWith('approval.')) return 'approval record';
  if (rest.startsWith('approvals.pending')) return 'pending index';
  const [queue, id] = rest.split(':');
  if (queue === QUEUE_NAMES.agentRuns || queue === QUEUE_NAMES.approvals) {
    if (id && /^(run-|appr-)/.test(id))
      return `${queue} job${rest.split(':').length > 2 ? ` ${rest.split(':').slice(2).join(':')}` : ''}`;
    return `${queue} queue keys`;
  }
  return 'other';
}

function total(kinds: Map<string, { keys: number; bytes: number }>): number {
  let sum = 0;
  for (const entry of kinds.values()) sum += entry.bytes;
  return sum;
}

/**
 * Redis memory per parked run: N runs each parked on one approval (a gated call with small,
 * realistic arguments), measured with `MEMORY USAGE` over every key of the deployment's prefix,
 * minus what the prefix held before. Counts the run's job, checkpoint, approval record, approval
 * child job and their share of the queues' sets.
 */
const suite: BenchSuite = {
  name: 'approvals-memory',
  description: 'Redis bytes per parked run at 10 000 parked runs (report; --quick: 1 000)',
  async run(context) {
    const parkedRuns = context.quick ? 1_000 : 10_000;
    const redis = new Redis(context.redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    try {
      const definition = await putServer({
        redis,
        prefix,
        definition: { id: 'github', transport: { type: 'stdio', command: '/nonexistent/never-started' } },
      });
      await writeCatalogEntry({
        redis,
        prefix,
        definition,
        tools: [
          {
            name: 'create_issue',
            description: 'Creates an issue in a repository.',
            inputSchema: {
              type: 'object',
              properties: {
                repository: { type: 'string' },
                title: { type: 'string' },
                body: { type: 'string' },
                labels: { type: 'array', items: { type: 'string' } },
              },
              required: ['repository', 'title'],
            },
          },
        ],
      });
      const before = total(await memoryByKind(redis, prefix));
      const worker = await startAgentWorker({
        config: loadConfig({
          REDIS_URL: context.redisUrl,
          AGENTQ_PREFIX: prefix,
          AGENTQ_WORKER_CONCURRENCY: '32',
          LOG_LEVEL: 'silent',
        }),
        logger: silentLogger(),
      });
      const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: redis, prefix });
      const spec = runSpecSchema.parse({
        assistant: {
          model: 'scripted:bench',
          mcpServers: ['github'],
          script: [
            {
              toolCalls: [
                {
                  toolName: 'mcp__github__createIssue',
                  input: {
                    repository: 'acme/web',
                    title: 'Checkout page times out under load',
                    body: 'Seen on 3 of 10 attempts since the last deploy; logs attached in the ticket.',
                    labels: ['bug', 'p1'],
                  },
                },
              ],
            },
            { text: 'Filed.' },
          ],
        },
        input: { prompt: 'File an issue about the checkout timeouts.' },
        approval: { requireFor: ['github:create_issue'] },
      });
      const started = performance.now();
      for (let offset = 0; offset < parkedRuns; offset += 1_000) {
        await runs.addBulk(
          Array.from({ length: Math.min(1_000, parkedRuns - offset) }, (_, index) => ({
            name: 'run',
            data: spec,
            opts: { ...defaultRunJobOptions({ attempts: 3 }), jobId: `run-${offset + index}` },
          })),
        );
      }
      for (;;) {
        const counts = await runs.getJobCounts('waiting-children', 'failed');
        if ((counts.failed ?? 0) > 0) throw new Error(`${counts.failed} runs failed`);
        const pending = await redis.zcard(keyNames(prefix).pendingApprovals);
        if ((counts['waiting-children'] ?? 0) >= parkedRuns && pending >= parkedRuns) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const parkSeconds = (performance.now() - started) / 1_000;
      await worker.close();
      await runs.close();
      const kinds = await memoryByKind(redis, prefix);
      const bytesPerRun = (total(kinds) - before) / parkedRuns;
      const breakdown = Object.fromEntries(
        [...kinds.entries()].map(([kind, entry]) => [
          kind,
          { keys: entry.keys, bytesPerRun: entry.bytes / parkedRuns },
        ]),
      );
      const figures: BenchFigure[] = [
        {
          name: `redis.bytes-per-parked-run@${parkedRuns}`,
          value: bytesPerRun,
          unit: 'bytes',
          details: { parkedRuns, breakdown, parkSeconds },
        },
        {
          name: `redis.total-for-parked-runs@${parkedRuns}`,
          value: (bytesPerRun * parkedRuns) / 1024 / 1024,
          unit: 'MB',
        },
        { name: 'park.rate', value: parkedRuns / parkSeconds, unit: 'runs/s' },
      ];
      return figures;
    } finally {
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
