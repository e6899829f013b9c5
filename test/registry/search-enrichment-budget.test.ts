import { keyNames, requestRefresh, takeEnrichmentCall } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeEnrichmentChat, type FakeEnrichmentChat } from '../fixtures/providers/fake-enrichment-chat.js';
import { capturingLogger, createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import { everythingCommand } from '../worker/helpers/catalog.js';

const budget = 3;

// A server's enrichment costs at most AGENTQ_SEARCH_ENRICH_MAX_PER_SERVER_HOUR model calls per hour,
// counted in Redis over every warmer; the list itself is written whatever the budget says.
describe('the hourly enrichment budget of a server (two warmers, loopback model, real Redis)', () => {
  let chat: FakeEnrichmentChat;
  let harness: WarmerHarness;
  const first = capturingLogger();
  const second = capturingLogger();

  beforeAll(async () => {
    chat = await startFakeEnrichmentChat();
    harness = await createWarmerHarness();
  });

  afterAll(async () => {
    await harness?.close();
    await chat?.close();
  });

  const budgetLines = (lines: Array<Record<string, unknown>>) =>
    lines.filter(
      (line) => line.serverId === 'everything' && String(line.msg).startsWith('enrichment budget of the server spent'),
    );

  it('stops asking the model once the budget is spent, over both warmers, and still writes the list', async () => {
    const env = {
      AGENTQ_SEARCH_ENRICH_MODEL: 'openai-compatible:fake-enrich',
      OPENAI_COMPATIBLE_BASE_URL: chat.baseUrl,
      AGENTQ_SEARCH_ENRICH_MAX_PER_SERVER_HOUR: String(budget),
    };
    await harness.startWarmer({ env, logger: first.logger, warmerId: 'budget-a' });
    await harness.startWarmer({ env, logger: second.logger, warmerId: 'budget-b' });
    await harness.putServer({
      id: 'everything',
      transport: { type: 'stdio', command: everythingCommand, args: ['stdio'] },
    });
    const entry = await waitFor(() => harness.entry('everything'), { what: 'the catalog entry' });
    expect(entry.tools.length).toBeGreaterThan(budget);
    await waitFor(() => budgetLines([...first.lines, ...second.lines])[0], { what: 'the spent-budget warning' });
    expect(chat.asked).toHaveLength(budget);

    // Another read, on whichever warmer takes it: the budget is shared, so the model is not asked.
    await requestRefresh(harness.queue, { serverId: 'everything', reason: 'on-demand' });
    await waitFor(
      () => {
        const passes = [...first.lines, ...second.lines].filter(
          (line) => line.msg === 'could not enrich some catalog tools; retried on the next read',
        );
        return passes.length >= 2 ? passes : undefined;
      },
      { what: 'the second enrichment pass' },
    );
    expect(chat.asked).toHaveLength(budget);
    expect(await harness.entry('everything')).not.toBeNull();
    // One warning per warmer and hour, not one per tool.
    expect(budgetLines(first.lines).length).toBeLessThanOrEqual(1);
    expect(budgetLines(second.lines).length).toBeLessThanOrEqual(1);
  });

  it('counts per server and per hour window, and the counter expires', async () => {
    const { redis, prefix } = harness.ctx;
    const now = Date.UTC(2026, 11, 2, 10, 59, 0);
    const take = (serverId: string, at: number) =>
      takeEnrichmentCall({ redis, prefix, serverId, maxPerHour: 2, now: at });
    expect((await take('budget-x', now)).allowed).toBe(true);
    expect((await take('budget-x', now)).allowed).toBe(true);
    const spent = await take('budget-x', now);
    expect(spent).toMatchObject({ allowed: false, used: 3, windowEndsAt: Date.UTC(2026, 11, 2, 11) });
    expect((await take('budget-y', now)).allowed).toBe(true);
    expect((await take('budget-x', now + 60_000)).allowed).toBe(true);
    const key = keyNames(prefix).enrichBudget('budget-x', Math.floor(now / 3_600_000));
    expect(await redis.ttl(key)).toBeGreaterThan(3600);
  });
});
