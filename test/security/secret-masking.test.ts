// Hole 5, written as the attack: a secret travels percent-encoded in a server's URL, and the
// server echoes the request (path, query, header, and the header in base64) in an error body. The
// status record, every other key the deployment wrote, the warmer's and worker's logs and the
// error the model sees must hold the secret in none of its forms, and the stored error is bounded.
import { createServer, type Server } from 'node:http';
import { startAgentWorker, type AgentWorker } from '@agentq/agent-worker';
import { createLogger, runResultSchema, type Logger } from '@agentq/shared';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalogEntry } from '../worker/helpers/catalog.js';
import { enqueueRun, fastTuning, runsQueue, testConfig, waitForJob } from '../worker/helpers/worker-harness.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';

const secret = 'sk-echo s3cret/va|ue+42@ok~';
const secretEnv = { AGENTQ_SECRET_ECHO: secret };

let harness: WarmerHarness;
let worker: AgentWorker | undefined;
let queue: Queue;
let echo: Server;
let port: number;
const seen: string[] = [];
const logLines: string[] = [];

function capture(name: string): Logger {
  return createLogger({
    level: 'debug',
    name,
    destination: {
      write(text: string) {
        logLines.push(text);
      },
    },
  });
}

/** Every form of the secret that could have left the process, as the echo server saw it. */
function forms(): string[] {
  const header = Buffer.from(`Bearer ${secret}`);
  // The URL parser encodes a path and a query each its own way (neither is encodeURI's).
  const asSent = seen.flatMap((url) => {
    const [path = '', query = ''] = url.split('?k=');
    return [path.slice('/mcp/'.length), query].filter((value) => value.length >= 8);
  });
  return [
    secret,
    encodeURIComponent(secret),
    encodeURI(secret),
    encodeURIComponent(secret).replace(/%20/g, '+'),
    ...asSent,
    Buffer.from(secret).toString('base64').slice(0, 20),
    // Bytes 9..17 of the header lie inside the secret: base64 characters 12..24 encode only them.
    header.toString('base64').slice(12, 24),
    header.toString('base64url').slice(12, 24),
  ];
}

async function everythingStored(redis: Redis, prefix: string): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      if (type === 'string') parts.push((await redis.get(key)) ?? '');
      else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'list') parts.push(JSON.stringify(await redis.lrange(key, 0, -1)));
      else if (type === 'zset') parts.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
      else if (type === 'stream') parts.push(JSON.stringify(await redis.xrange(key, '-', '+')));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

beforeAll(async () => {
  harness = await createWarmerHarness();
  echo = createServer((request, response) => {
    seen.push(request.url ?? '');
    const authorization = request.headers.authorization ?? '';
    response.writeHead(500, { 'content-type': 'text/plain' });
    response.end(
      `no route for ${request.url ?? ''}; auth ${authorization}; basic ${Buffer.from(authorization).toString('base64')}; ` +
        'x'.repeat(20_000),
    );
  });
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  port = (echo.address() as { port: number }).port;
  queue = runsQueue(harness.ctx);
});

afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true });
  await queue?.close();
  await harness?.close();
  await new Promise((resolve) => echo.close(resolve));
});

describe('a server that echoes the request in its error', () => {
  it('never gets the secret, in any encoding, into status, stored data, logs or the model', async () => {
    const definition = await harness.store.put({
      id: 'echo',
      transport: {
        type: 'streamable-http',
        url: `http://127.0.0.1:${port}/mcp/\${AGENTQ_SECRET_ECHO}?k=\${AGENTQ_SECRET_ECHO}`,
        headers: { Authorization: 'Bearer ${AGENTQ_SECRET_ECHO}' },
      },
      timeouts: { connectMs: 10_000, listMs: 10_000, callMs: 10_000 },
    });
    await harness.startWarmer({ env: secretEnv, logger: capture('warmer') });
    const status = await waitFor(() => harness.status('echo'), { what: 'echo refreshed', timeoutMs: 45_000 });
    expect(status.state).toBe('error');
    expect(status.error).toContain('no route for');
    expect(status.error).toContain('[redacted]');
    // Cut before it was stored: the server sent over 20 000 characters.
    expect(status.error?.length).toBeLessThan(2_200);

    // A run calls a tool of that server (cached as if listed earlier): the failed call goes back
    // to the model as a tool error.
    await writeCatalogEntry({
      redis: harness.ctx.redis,
      prefix: harness.ctx.prefix,
      definition,
      tools: [{ name: 'ping', description: 'Pings.', inputSchema: { type: 'object', properties: {} } }],
    });
    worker = await startAgentWorker({
      config: testConfig({
        redisUrl: harness.ctx.redisUrl,
        prefix: harness.ctx.prefix,
        env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true' },
      }),
      logger: capture('worker'),
      env: { ...process.env, ...secretEnv },
      tuning: fastTuning,
    });
    await enqueueRun(queue, {
      runId: 'echo-run',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['echo'],
          script: [{ toolCalls: [{ toolName: 'mcp__echo__ping', input: {} }] }, { text: 'done' }],
        },
        input: { prompt: 'ping it' },
      },
    });
    const finished = await waitForJob(queue, 'echo-run');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.toolCalls[0]).toMatchObject({ toolName: 'mcp__echo__ping', isError: true });
    const modelFacing = JSON.stringify(result.toolCalls[0]?.output);
    expect(modelFacing).toContain('no route for');

    // The secret did leave, as the definition asked, and came back in the error bodies.
    expect(seen.length).toBeGreaterThan(1);
    expect(seen.some((url) => url.includes('%20') || url.includes('%7C'))).toBe(true);

    const stored = await everythingStored(harness.ctx.redis, harness.ctx.prefix);
    const logs = logLines.join('');
    expect(logs).toContain('[redacted]');
    for (const form of forms()) {
      expect(status.error, `status: ${form}`).not.toContain(form);
      expect(modelFacing, `model: ${form}`).not.toContain(form);
      expect(stored, `stored: ${form}`).not.toContain(form);
      expect(logs, `logs: ${form}`).not.toContain(form);
    }
  });
});
