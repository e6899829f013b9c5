import { catalogStatusSchema, runResultSchema, runSpecSchema, type CatalogStatus } from '@agentq/shared';
import { keyNames } from '@agentq/store';
import type { LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { MockLanguageModelV3 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from './helpers/catalog.js';
import { createDirectRunProcessor, firstStartJob, type DirectRunProcessor } from './helpers/direct-run-processor.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const lastGoodAt = Date.UTC(2026, 10, 30, 9, 15);
/** What a warmer stores after masking: the secret itself never reaches the status. */
const maskedError = 'connect ECONNREFUSED 127.0.0.1:9 (token ***)';

describe('what the model hears about stale and unavailable servers', () => {
  let ctx: TestContext;
  let direct: DirectRunProcessor | undefined;

  const putStatus = async (serverId: string, status: Omit<CatalogStatus, 'failures'> & { failures?: number }) =>
    await ctx.redis.set(keyNames(ctx.prefix).status(serverId), JSON.stringify(catalogStatusSchema.parse(status)));

  beforeAll(async () => {
    ctx = createTestContext();
    const tools = (names: string[]) =>
      names.map((name) => ({ name, description: `Does ${name}.`, inputSchema: { type: 'object' as const } }));
    const transport = { type: 'stdio' as const, command: '/nonexistent/never-started' };
    // fresh: read fine. flaky: a last good list, refreshes failing since. never: never warmed.
    // broken: every read failed, no list. off: turned off.
    const fresh = await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'fresh', transport } });
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition: fresh, tools: tools(['ping']) });
    const flaky = await putServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'flaky', name: 'Flaky Files', transport },
    });
    await writeCatalogEntry({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: flaky,
      tools: tools(['read', 'write']),
    });
    await putStatus('flaky', {
      state: 'stale',
      error: maskedError,
      lastAttemptAt: lastGoodAt + 600_000,
      lastSuccessAt: lastGoodAt,
      toolCount: 2,
      failures: 4,
    });
    await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'never', transport } });
    await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'broken', transport } });
    await putStatus('broken', { state: 'error', error: 'spawn ENOENT', lastAttemptAt: lastGoodAt, toolCount: 0 });
    await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'off', transport, enabled: false } });
  });

  afterAll(async () => {
    await direct?.close();
    await ctx?.close();
  });

  it('gets one bounded status section in the system prompt, and a note on the stale inline tools', async () => {
    const calls: LanguageModelV3CallOptions[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: async (options) => {
        calls.push(options);
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage,
          warnings: [],
        };
      },
    });
    direct = createDirectRunProcessor({
      ctx,
      caller: { callTool: async () => ({ content: [] }) },
      models: { resolve: () => ({ model, modelId: 'openai:mock-model', contextWindow: 200_000 }) },
    });
    const spec = runSpecSchema.parse({
      assistant: {
        model: 'openai:mock-model',
        mcpServers: ['fresh', 'flaky', 'never', 'broken', 'off'],
        system: 'Be brief.',
      },
      input: { prompt: 'hello' },
      // A gated tool is inline too, and must carry the note as well.
      approval: { requireFor: ['flaky:write'] },
    });
    const job = await firstStartJob(direct.runs, { runId: 'fresh-1', spec });
    const result = runResultSchema.parse(await direct.processor(job));
    expect(result.text).toBe('done');

    expect(calls).toHaveLength(1);
    const [first] = calls;
    const system = first?.prompt.find((message) => message.role === 'system')?.content ?? '';
    const section = system.slice(system.indexOf('<mcp_server_status>'), system.indexOf('</mcp_server_status>'));
    expect(system.startsWith('Be brief.')).toBe(true);
    const line = (label: string) => section.split('\n').find((each) => each.startsWith(`- ${label}:`)) ?? '';
    expect(line('Flaky Files')).toContain('stale since 2026-11-30T09:15Z');
    expect(line('Flaky Files')).toContain(maskedError);
    expect(line('never')).toContain('unavailable');
    expect(line('broken')).toContain('unavailable');
    expect(line('broken')).toContain('spawn ENOENT');
    expect(line('off')).toContain('unavailable');
    expect(line('fresh')).toBe('');

    const descriptions = new Map(
      (first?.tools ?? []).map((each) => [each.name, each.type === 'function' ? (each.description ?? '') : '']),
    );
    expect([...descriptions.keys()].sort()).toEqual(['mcp__flaky__read', 'mcp__flaky__write', 'mcp__fresh__ping']);
    for (const name of ['mcp__flaky__read', 'mcp__flaky__write']) {
      expect(descriptions.get(name)).toContain('server Flaky Files is stale since 2026-11-30T09:15Z');
    }
    expect(descriptions.get('mcp__fresh__ping')).toBe('Does ping.');
    expect(result.warnings?.map((warning) => warning.serverId)).toEqual(['off']);
  });
});
