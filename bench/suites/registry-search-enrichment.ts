import { startCatalogWarmer } from '@agentq/catalog-warmer';
import { QUEUE_NAMES, silentLogger, type Logger } from '@agentq/shared';
import { keyNames, requestRefresh } from '@agentq/store';
import { Queue } from 'bullmq';
import {
  startFakeEnrichmentChat,
  type FakeEnrichmentChat,
} from '../../test/fixtures/providers/fake-enrichment-chat.js';
import { startHttpFixture, type HttpFixture } from '../../test/fixtures/mcp/spawn-fixture.js';
import { capturingLogger } from '../../test/warmer/warmer-harness.js';
import { median, openBenchSpace, until } from '../../test/warmer/warmer-bench-support.js';
import { atMost, type BenchFigure, type BenchSuite } from '../bench-types.js';

// The cost of description enrichment (AGENTQ_SEARCH_ENRICH_MODEL) in a real warmer, against a
// loopback chat completions model with a fixed latency per call: model calls and tokens per tool
// on a first warm, none on a rewarm, and the warm time with enrichment over the warm time without,
// in the same run. Tokens are the fake's count (a quarter of the characters in and out), the
// usual rough estimate of a real tokenizer. What enrichment does for search quality needs a real
// model: docs/benchmarks.md gives the command.
const MODEL_LATENCY_MS = 50;

interface Pass {
  /** From `startCatalogWarmer()` to the entry in Redis. */
  listMs: number;
  /** From `startCatalogWarmer()` to every tool's examples in Redis (enrichment only). */
  enrichedMs?: number;
  tools: number;
  calls: number;
  promptTokens: number;
  completionTokens: number;
  /** Model calls made by a second read of the same list (enrichment only). */
  rewarmCalls?: number;
}

function enrichedLines(lines: Array<Record<string, unknown>>) {
  return lines.filter((line) => line.msg === 'enriched catalog tools');
}

async function warmPass(redisUrl: string, fixture: HttpFixture, chat: FakeEnrichmentChat | undefined): Promise<Pass> {
  const space = openBenchSpace(redisUrl);
  const captured = capturingLogger();
  const logger: Logger = chat ? captured.logger : silentLogger();
  const env: Record<string, string> = chat
    ? { AGENTQ_SEARCH_ENRICH_MODEL: 'openai-compatible:bench-enrich', OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl }
    : {};
  const asked = chat?.asked.length ?? 0;
  const tokens = { ...(chat?.tokens ?? { prompt: 0, completion: 0 }) };
  try {
    await space.store.put({ id: 'bench', transport: { type: 'streamable-http', url: fixture.url } });
    const keys = keyNames(space.prefix);
    const started = performance.now();
    const warmer = await startCatalogWarmer({ config: space.config(env), logger });
    try {
      await until(async () => (await space.redis.exists(keys.tools('bench'))) === 1);
      const listMs = performance.now() - started;
      const text = (await space.redis.get(keys.tools('bench'))) ?? '{}';
      const tools = (JSON.parse(text) as { tools?: unknown[] }).tools?.length ?? 0;
      if (!chat) return { listMs, tools, calls: 0, promptTokens: 0, completionTokens: 0 };
      await until(() => enrichedLines(captured.lines).length >= 1, 300_000);
      const enrichedMs = performance.now() - started;
      const calls = chat.asked.length - asked;
      const pass: Pass = {
        listMs,
        enrichedMs,
        tools,
        calls,
        promptTokens: chat.tokens.prompt - tokens.prompt,
        completionTokens: chat.tokens.completion - tokens.completion,
      };
      const queue = new Queue(QUEUE_NAMES.catalogRefresh, {
        connection: space.redis.duplicate(),
        prefix: space.prefix,
      });
      await requestRefresh(queue, { serverId: 'bench', reason: 'on-demand' });
      await queue.close();
      await until(() => enrichedLines(captured.lines).length >= 2, 120_000);
      pass.rewarmCalls = chat.asked.length - asked - calls;
      return pass;
    } finally {
      await warmer.close();
    }
  } finally {
    await space.close();
  }
}

const suite: BenchSuite = {
  name: 'registry-search-enrichment',
  description: `description enrichment in a warmer, loopback model at ${MODEL_LATENCY_MS} ms a call: calls, tokens, warm time`,
  async run(context): Promise<BenchFigure[]> {
    const rounds = context.quick ? 1 : 3;
    const fixture = await startHttpFixture({ tools: context.quick ? 10 : 40 });
    const chat = await startFakeEnrichmentChat({ delayMs: MODEL_LATENCY_MS });
    try {
      const plain: Pass[] = [];
      const enriched: Pass[] = [];
      for (let round = 0; round < rounds; round += 1) {
        plain.push(await warmPass(context.redisUrl, fixture, undefined));
        enriched.push(await warmPass(context.redisUrl, fixture, chat));
      }
      const plainMs = median(plain.map((pass) => pass.listMs));
      const listRatio = median(enriched.map((pass) => pass.listMs)) / plainMs;
      const enrichedRatio = median(enriched.map((pass) => pass.enrichedMs ?? 0)) / plainMs;
      const tools = enriched[0]?.tools ?? 0;
      const perTool = (pick: (pass: Pass) => number) => median(enriched.map((pass) => pick(pass) / pass.tools));
      const rewarmCalls = Math.max(...enriched.map((pass) => pass.rewarmCalls ?? 0));
      const details = { plain, enriched, modelLatencyMs: MODEL_LATENCY_MS, concurrency: 2 };
      return [
        {
          name: `model calls per tool, first warm (${tools} tools)`,
          value: perTool((pass) => pass.calls),
          unit: 'calls',
          details,
        },
        { name: 'model calls, rewarm of the same list', value: rewarmCalls, unit: 'calls', ...atMost(rewarmCalls, 0) },
        {
          name: 'prompt tokens per tool, first warm (chars/4)',
          value: perTool((pass) => pass.promptTokens),
          unit: 'tokens',
        },
        {
          name: 'completion tokens per tool, first warm (chars/4)',
          value: perTool((pass) => pass.completionTokens),
          unit: 'tokens',
        },
        {
          name: 'list in Redis: with enrichment / without',
          value: listRatio,
          unit: 'ratio',
          ...atMost(listRatio, 1.5),
        },
        { name: 'every tool enriched / list in Redis without enrichment', value: enrichedRatio, unit: 'ratio' },
      ];
    } finally {
      await chat.close();
      await fixture.stop();
    }
  },
};

export default suite;
