import { randomUUID } from 'node:crypto';
import { runResultSchema, type RunSpecInput, type Usage } from '@agentq/shared';
import { countTokens } from 'gpt-tokenizer';
import { Redis } from 'ioredis';
import { fixtureStdioTransport } from '../../test/fixtures/mcp/spawn-fixture.js';
import {
  anthropicText,
  anthropicToolSearchThenUse,
  anthropicToolUse,
  startFakeAnthropic,
} from '../../test/fixtures/providers/fake-anthropic-messages.js';
import {
  openaiFunctionCall,
  openaiText,
  openaiToolSearchThenCall,
  startFakeOpenAIResponses,
} from '../../test/fixtures/providers/fake-openai-responses.js';
import type { CannedResponse, FakeProviderServer } from '../../test/fixtures/providers/fake-provider-server.js';
import {
  createAnthropicCache,
  createOpenAICache,
  type InputUsage,
} from '../../test/fixtures/providers/prompt-cache-model.js';
import { deleteKeysWithPrefix } from '../../test/helpers/redis.js';
import { warmServer } from '../../test/worker/helpers/catalog.js';
import { enqueueRun, runsQueue, startTestWorker, waitForJob } from '../../test/worker/helpers/worker-harness.js';
import type { BenchFigure, BenchSuite } from '../bench-types.js';

type Json = Record<string, unknown>;
type Provider = 'anthropic' | 'openai';
type Strategy = 'inline' | 'meta' | 'native';

/** The deferred tools the recorded run finds and calls, one per step, before its answer. */
const targets = [7, 23, 58, 141];
const wireName = (index: number) => `mcp__big__tool${String(index).padStart(4, '0')}`;
const query = (index: number) => `collection ${index % 17} records`;
// A verbose search returns the signatures, which tool_invoke needs to have been shown first.
const metaSearch = (index: number) => ({ query: `${query(index)} tool number ${index}`, verbose: true });
const models: Record<Provider, string> = { anthropic: 'anthropic:claude-sonnet-4-5', openai: 'openai:gpt-5.4' };
// Prices of cached input as a share of the full input price: Anthropic reads at 0.1 and writes
// (5-minute cache) at 1.25; OpenAI's GPT-5 family reads at 0.1 and writes at no extra cost.
const price: Record<Provider, { read: number; write: number }> = {
  anthropic: { read: 0.1, write: 1.25 },
  openai: { read: 0.1, write: 1 },
};

/** The recorded answers of the run: four tools found and called, then the answer. */
function script(provider: Provider, strategy: Strategy, tag: string): CannedResponse[] {
  const answers: CannedResponse[] = [];
  for (const index of targets) {
    const id = `${tag}_${index}`;
    const input = { query: `record ${index}` };
    if (provider === 'anthropic') {
      if (strategy === 'inline') answers.push(anthropicToolUse({ id: `toolu_${id}`, name: wireName(index), input }));
      if (strategy === 'meta') {
        answers.push(anthropicToolUse({ id: `toolu_s${id}`, name: 'tool_search', input: metaSearch(index) }));
        answers.push(
          anthropicToolUse({ id: `toolu_${id}`, name: 'tool_invoke', input: { name: wireName(index), params: input } }),
        );
      }
      if (strategy === 'native') {
        answers.push(
          anthropicToolSearchThenUse({
            searchId: `srvtoolu_${id}`,
            query: query(index),
            found: [wireName(index)],
            call: { id: `toolu_${id}`, name: wireName(index), input },
          }),
        );
      }
    } else {
      if (strategy === 'inline')
        answers.push(openaiFunctionCall({ callId: `call_${id}`, name: wireName(index), input }));
      if (strategy === 'meta') {
        answers.push(openaiFunctionCall({ callId: `call_s${id}`, name: 'tool_search', input: metaSearch(index) }));
        answers.push(
          openaiFunctionCall({
            callId: `call_${id}`,
            name: 'tool_invoke',
            input: { name: wireName(index), params: input },
          }),
        );
      }
      if (strategy === 'native') {
        answers.push(
          openaiToolSearchThenCall({
            query: query(index),
            found: [{ name: wireName(index), description: `Synthetic fixture tool number ${index}.` }],
            call: { callId: `call_${id}`, name: wireName(index), input },
          }),
        );
      }
    }
  }
  answers.push(provider === 'anthropic' ? anthropicText('all four found') : openaiText('all four found'));
  return answers;
}

/** What the fakes billed for the requests of the current run, with and without the cache. */
interface Ledger {
  cached: InputUsage[];
  uncached: InputUsage[];
}

/**
 * The fakes' usage: each answer's usage is computed from the request it answers with the model of
 * `prompt-cache-model.ts`; the cache lives for one run (`reset` starts the next conversation).
 */
function createBilling() {
  let anthropicCache = createAnthropicCache();
  let openaiCache = createOpenAICache();
  const openaiItems = new Map<string, unknown>();
  let ledger: Ledger = { cached: [], uncached: [] };
  const outputTokens = (value: unknown) => countTokens(JSON.stringify(value ?? ''));
  return {
    reset(): Ledger {
      const done = ledger;
      anthropicCache = createAnthropicCache();
      openaiCache = createOpenAICache();
      ledger = { cached: [], uncached: [] };
      return done;
    },
    anthropic(request: { body: unknown }, answer: CannedResponse): CannedResponse {
      const body = answer.body as Json;
      if (answer.status !== 200 || typeof request.body !== 'object') return answer;
      const requestBody = request.body as Json;
      const usage = anthropicCache.usage(requestBody, true);
      ledger.cached.push(usage);
      ledger.uncached.push(anthropicCache.usage(requestBody, false));
      return {
        ...answer,
        body: {
          ...body,
          usage: {
            input_tokens: usage.fullPrice,
            output_tokens: outputTokens(body.content),
            cache_creation_input_tokens: usage.cacheCreation,
            cache_read_input_tokens: usage.cacheRead,
          },
        },
      };
    },
    openai(request: { body: unknown }, answer: CannedResponse): CannedResponse {
      const body = answer.body as Json;
      if (answer.status !== 200 || typeof request.body !== 'object') return answer;
      const requestBody = request.body as Json;
      const usage = openaiCache.usage(requestBody, openaiItems, true);
      ledger.cached.push(usage);
      ledger.uncached.push(openaiCache.usage(requestBody, openaiItems, false));
      for (const item of (body.output as Json[] | undefined) ?? []) openaiItems.set(String(item.id), item);
      const output = outputTokens(body.output);
      return {
        ...answer,
        body: {
          ...body,
          usage: {
            input_tokens: usage.total,
            input_tokens_details: { cached_tokens: usage.cacheRead },
            output_tokens: output,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: usage.total + output,
          },
        },
      };
    },
  };
}

const sum = (usages: InputUsage[], key: keyof InputUsage) => usages.reduce((total, usage) => total + usage[key], 0);

/** The figures of one run: full-price, cache-read and cache-creation input tokens, and the cost. */
function figuresOf(options: {
  provider: Provider;
  strategy: Strategy;
  ledger: Ledger;
  reported: Usage;
  baseline: number;
}): BenchFigure[] {
  const { provider, strategy, ledger } = options;
  const label = `${provider}.${strategy}`;
  const fullPrice = sum(ledger.cached, 'fullPrice');
  const read = sum(ledger.cached, 'cacheRead');
  const creation = sum(ledger.cached, 'cacheCreation');
  const uncached = sum(ledger.uncached, 'fullPrice');
  const equivalent = fullPrice + read * price[provider].read + creation * price[provider].write;
  const details = { requests: ledger.cached.length, reported: options.reported };
  return [
    { name: `${label}.requests`, value: ledger.cached.length, unit: 'requests' },
    { name: `${label}.uncached.full-price`, value: uncached, unit: 'tokens', details },
    { name: `${label}.cached.full-price`, value: fullPrice, unit: 'tokens' },
    { name: `${label}.cached.cache-read`, value: read, unit: 'tokens' },
    { name: `${label}.cached.cache-creation`, value: creation, unit: 'tokens' },
    { name: `${label}.cached.full-price-equivalent`, value: Math.round(equivalent), unit: 'tokens' },
    { name: `${label}.uncached/inline-uncached`, value: uncached / options.baseline, unit: 'ratio' },
    { name: `${label}.cached-equivalent/inline-uncached`, value: equivalent / options.baseline, unit: 'ratio' },
  ];
}

/**
 * The caching × exposition token table of issue 23: one recorded run (find and call four of 200
 * deferred MCP tools, one per step, then answer) through the loopback fake Anthropic Messages and
 * OpenAI Responses APIs, with the tools inline (a context window large enough that nothing is
 * deferred: the baseline), behind agentq's meta tools, and behind the provider's native search.
 * The fakes compute each answer's usage from the request agentq actually sent (see
 * `test/fixtures/providers/prompt-cache-model.ts`), with the cache and without it.
 */
const suite: BenchSuite = {
  name: 'provider-caching-tokens',
  description: 'input tokens at full price, cache read and cache creation, per provider × exposition × caching',
  async run({ redisUrl }) {
    const redis = new Redis(redisUrl, { maxRetriesPerRequest: null });
    const prefix = `bench-${randomUUID()}`;
    const billing = createBilling();
    const fakes: FakeProviderServer[] = [];
    let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
    const queue = runsQueue({ redis, prefix });
    try {
      await warmServer({
        redis,
        prefix,
        definition: { id: 'big', transport: fixtureStdioTransport({ tools: 200 }), timeouts: { connectMs: 60_000 } },
      });
      const anthropic = await startFakeAnthropic({ finish: (request, answer) => billing.anthropic(request, answer) });
      const openai = await startFakeOpenAIResponses({ finish: (request, answer) => billing.openai(request, answer) });
      fakes.push(anthropic, openai);
      worker = await startTestWorker({
        redisUrl,
        prefix,
        env: {
          ANTHROPIC_API_KEY: 'sk-ant-bench-000000',
          AGENTQ_ANTHROPIC_BASE_URL: anthropic.baseUrl,
          OPENAI_API_KEY: 'sk-bench-000000',
          AGENTQ_OPENAI_BASE_URL: openai.baseUrl,
        },
        tuning: { lockDurationMs: 60_000, stalledIntervalMs: 30_000 },
      });
      const figures: BenchFigure[] = [];
      for (const provider of ['anthropic', 'openai'] as const) {
        let baseline = 0;
        for (const strategy of ['inline', 'meta', 'native'] as const) {
          const runId = `caching-${provider}-${strategy}`;
          (provider === 'anthropic' ? anthropic : openai).enqueue(...script(provider, strategy, strategy));
          billing.reset();
          const spec: RunSpecInput = {
            assistant: {
              model: models[provider],
              system: 'Be brief. Find the tools you need among the deferred ones, call them, then answer.',
              mcpServers: ['big'],
              // 1 M tokens leaves the 200 tools (about 30 k tokens) under the deferral threshold.
              contextWindow: strategy === 'inline' ? 1_000_000 : 200_000,
              settings: { toolExposition: strategy === 'native' ? 'native' : 'meta' },
            },
            input: { prompt: 'Look up records 7, 23, 58 and 141 and summarize them.' },
          };
          await enqueueRun(queue, { runId, spec, attempts: 1 });
          const finished = await waitForJob(queue, runId, 180_000);
          const ledger = billing.reset();
          if (finished.state !== 'completed') throw new Error(`${runId} failed: ${finished.failedReason}`);
          const result = runResultSchema.parse(finished.returnvalue);
          // Every target tool ran (its fixture output names it), directly or through tool_invoke.
          for (const index of targets) {
            const ran = result.toolCalls.some((call) => {
              const output = JSON.stringify(call.output ?? '');
              return (
                !call.isError &&
                !output.includes('"refused"') &&
                output.includes(`tool_${String(index).padStart(4, '0')}`)
              );
            });
            if (!ran) throw new Error(`${runId} did not run ${wireName(index)}: ${JSON.stringify(result.toolCalls)}`);
          }
          const deferred = result.tools?.deferred ?? 0;
          if ((strategy === 'inline') !== (deferred === 0)) throw new Error(`${runId} deferred ${deferred} tools`);
          // What agentq reports for the run must be what the fake billed.
          const billed = { total: sum(ledger.cached, 'total'), read: sum(ledger.cached, 'cacheRead') };
          if (result.usage.inputTokens !== billed.total || (result.usage.cacheReadInputTokens ?? 0) !== billed.read) {
            throw new Error(`${runId} reported ${JSON.stringify(result.usage)}, billed ${JSON.stringify(billed)}`);
          }
          if (strategy === 'inline') baseline = sum(ledger.uncached, 'fullPrice');
          figures.push(...figuresOf({ provider, strategy, ledger, reported: result.usage, baseline }));
        }
      }
      return figures;
    } finally {
      await worker?.close();
      await Promise.all(fakes.map((fake) => fake.close()));
      await queue.obliterate({ force: true });
      await queue.close();
      await deleteKeysWithPrefix(redis, prefix);
      redis.disconnect();
    }
  },
};

export default suite;
