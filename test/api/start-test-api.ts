import { startApi, type RunningApi } from '@agentq/api';
import { loadConfig, silentLogger, type Config } from '@agentq/shared';
import type { TestContext } from '../helpers/test-context.js';

/** The token every API test uses. */
export const TEST_TOKEN = 'test-token-0123456789abcdef';

/** Config of a test deployment on the context's Redis and prefix, API on a free port. */
export function testConfig(ctx: TestContext, extra: Record<string, string> = {}): Config {
  return loadConfig({
    REDIS_URL: ctx.redisUrl,
    AGENTQ_PREFIX: ctx.prefix,
    AGENTQ_API_TOKEN: TEST_TOKEN,
    AGENTQ_API_PORT: '0',
    AGENTQ_RUN_ATTEMPTS: '1',
    LOG_LEVEL: 'silent',
    ...extra,
  });
}

/** A small fetch wrapper bound to one API. */
export interface ApiCaller {
  url: string;
  call(
    method: string,
    path: string,
    options?: { body?: unknown; token?: string | null; headers?: Record<string, string> },
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

/** Starts the API alone and returns it with a caller. */
export async function startTestApi(
  ctx: TestContext,
  config = testConfig(ctx),
): Promise<{ api: RunningApi; http: ApiCaller }> {
  const api = await startApi({ config, logger: silentLogger() });
  return { api, http: apiCaller(api.url) };
}

/** A caller for an API at `url`, authenticated with {@link TEST_TOKEN} unless told otherwise. */
export function apiCaller(url: string): ApiCaller {
  return {
    url,
    async call(method, path, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      const token = options.token === undefined ? TEST_TOKEN : options.token;
      if (token !== null) headers.authorization = `Bearer ${token}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const response = await fetch(url + path, {
        method,
        headers,
        body:
          options.body === undefined
            ? undefined
            : typeof options.body === 'string'
              ? options.body
              : JSON.stringify(options.body),
        redirect: 'manual',
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // not JSON: keep the text
      }
      return { status: response.status, body, headers: response.headers };
    },
  };
}

/**
 * Parses the Prometheus text exposition strictly enough to fail on a malformed line: returns
 * `name{labels}` → value.
 */
export function parseExposition(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?\s+(\S+)(\s+\d+)?$/;
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const match = sample.exec(line);
    if (!match) throw new Error(`malformed exposition line: ${line}`);
    const value = Number(match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : match[3]);
    if (Number.isNaN(value) && match[3] !== 'NaN') throw new Error(`bad value in: ${line}`);
    samples.set(`${match[1]}${match[2] ?? ''}`, value);
  }
  return samples;
}

/** A whole deployment in this process: warmer, worker and API on the context's prefix. */
export interface TestDeployment {
  api: RunningApi;
  http: ApiCaller;
  config: Config;
  /** Stops the API, the worker and the warmer, and obliterates the queues. */
  close(): Promise<void>;
}

/** server-everything over stdio, with `echo` gated, as the demo expects it. */
export const everythingServer = {
  id: 'everything',
  name: 'Everything',
  transport: { type: 'stdio', command: 'node_modules/.bin/mcp-server-everything', args: ['stdio'] },
  alwaysAsk: ['echo'],
} as const;

/** Starts warmer + worker + API in-process with a test prefix and the API on a free port. */
export async function startTestDeployment(ctx: TestContext): Promise<TestDeployment> {
  const { startCatalogWarmer } = await import('@agentq/catalog-warmer');
  const { startAgentWorker } = await import('@agentq/agent-worker');
  // The demo server is defined over REST by some tests: the operator allows its exact command.
  const config = testConfig(ctx, {
    AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
    AGENTQ_STDIO_COMMANDS: everythingServer.transport.command,
  });
  const logger = silentLogger();
  const warmer = await startCatalogWarmer({ config, logger });
  const worker = await startAgentWorker({ config, logger });
  const api = await startApi({ config, logger });
  return {
    api,
    http: apiCaller(api.url),
    config,
    async close() {
      for (const close of [() => api.close(), () => worker.close(), () => warmer.close()]) {
        try {
          await close();
        } catch (error) {
          console.error('closing a test role failed', error);
        }
      }
      const { Queue } = await import('bullmq');
      const { QUEUE_NAMES } = await import('@agentq/shared');
      for (const name of Object.values(QUEUE_NAMES)) {
        const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
        await queue.obliterate({ force: true }).catch(() => {});
        await queue.close();
      }
    },
  };
}

/** Polls `check` every 100 ms until it returns a value other than `undefined`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 30_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The demo's run spec: search + invoke a deferred tool, then an `echo` that needs approval. */
export function demoSpec() {
  return {
    assistant: { model: 'scripted:demo', mcpServers: ['everything'], contextWindow: 8_000 },
    input: { prompt: 'demo' },
  };
}
