import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { checkFetchTarget, createGuardedFetch } from '@agentq/shared';
import {
  createHtmlConverter,
  createWebFetcher,
  cutToTokenBudget,
  type HtmlConverter,
  type WebFetcher,
} from '@agentq/builtin-tools';
import { htmlToMarkdown } from '@agentq/kb/html-to-markdown';
import { send, startLoopbackServer } from '../../packages/builtin-tools/src/test-support/loopback-server.js';
import { buildNewsPage } from '../../packages/kb/src/test-support/news-page.js';
import { atMost, type BenchSuite } from '../bench-types.js';

/** Size of the page served, in bytes. */
const targetBytes = 200 * 1024;

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function time(action: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await action();
  return performance.now() - started;
}

/**
 * Times `action`, and the longest time the event loop could not turn meanwhile (what other runs of
 * the same worker, their streams and their job lock renewals, would have waited), both in ms.
 */
async function timeWithLoopBlock(action: () => Promise<unknown>): Promise<{ ms: number; blockMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    const ms = await time(action);
    // The sample of a block is taken when the loop turns again: let it turn before reading.
    await delay(5);
    return { ms, blockMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

/**
 * Issue #12: `web_fetch` against a bare `fetch` of the same local 200 KB page (goal <= 1.5x). The
 * page is a realistic news page (head scripts and styles, mega menu, article, sidebar, footer; see
 * `buildNewsPage`). Measured apart: the guarded fetch alone, and the HTML -> Markdown conversion
 * plus the token cut on the body already in memory. `web_fetch` runs both ways: converting on its
 * worker thread (the default) and on the calling thread, each with the longest event-loop block it
 * caused. All run interleaved in one loop, so load on the machine hits them alike.
 */
const suite: BenchSuite = {
  name: 'builtin-web-fetch',
  description:
    'web_fetch of a local 200 KB news page vs a bare fetch of it; guard, conversion and event-loop block apart',
  async run({ quick }) {
    const html = buildNewsPage(targetBytes);
    const server = await startLoopbackServer((_request, response) =>
      send(response, 200, 'text/html; charset=utf-8', html),
    );
    const url = `${server.origin}/article`;
    const allowHosts = ['127.0.0.1'];
    const threaded: HtmlConverter = createHtmlConverter({ threads: 1 });
    const inline: HtmlConverter = createHtmlConverter({ threads: 0 });
    const fetchers: Record<'threaded' | 'inline', WebFetcher> = {
      threaded: createWebFetcher({ allowHosts, htmlConverter: threaded }),
      inline: createWebFetcher({ allowHosts, htmlConverter: inline }),
    };
    const guardedFetch = createGuardedFetch({ allowHosts });
    const rounds = quick ? 8 : 60;
    const samples = {
      bare: [] as number[],
      bareBlock: [] as number[],
      guarded: [] as number[],
      conversion: [] as number[],
      threaded: [] as number[],
      threadedBlock: [] as number[],
      inline: [] as number[],
      inlineBlock: [] as number[],
    };
    let markdownChars = 0;
    let cut = false;
    try {
      await threaded.start();
      for (let round = -5; round < rounds; round += 1) {
        const bare = await timeWithLoopBlock(async () => (await fetch(url)).text());
        const guarded = await time(async () => {
          await checkFetchTarget(url, { allowHosts });
          return (await guardedFetch(url)).text();
        });
        const conversion = await time(async () => {
          // As web_fetch converts: text past 8 characters per budget token is left out first.
          const page = htmlToMarkdown(html, { maxTextChars: 8_000 * 8 });
          markdownChars = page.markdown.length;
          cut = page.pruned || cutToTokenBudget(page.markdown, 8_000).cut;
        });
        const onThread = await timeWithLoopBlock(() => fetchers.threaded.fetchPage({ url }));
        const onCaller = await timeWithLoopBlock(() => fetchers.inline.fetchPage({ url }));
        // The first rounds warm up connections and the JIT.
        if (round < 0) continue;
        samples.bare.push(bare.ms);
        samples.bareBlock.push(bare.blockMs);
        samples.guarded.push(guarded);
        samples.conversion.push(conversion);
        samples.threaded.push(onThread.ms);
        samples.threadedBlock.push(onThread.blockMs);
        samples.inline.push(onCaller.ms);
        samples.inlineBlock.push(onCaller.blockMs);
      }
    } finally {
      await Promise.all([threaded.close(), inline.close(), server.close()]);
    }
    const medians = Object.fromEntries(
      Object.entries(samples).map(([name, values]) => [name, Number(median(values).toFixed(3))]),
    ) as Record<keyof typeof samples, number>;
    const ratio = medians.threaded / medians.bare;
    const inlineRatio = medians.inline / medians.bare;
    const guardRatio = medians.guarded / medians.bare;
    const details = {
      rounds,
      htmlBytes: Buffer.byteLength(html),
      markdownChars,
      cutToTokenBudget: cut,
      medianMs: medians,
      maxLoopBlockMs: {
        bare: Math.max(...samples.bareBlock),
        threaded: Math.max(...samples.threadedBlock),
        inline: Math.max(...samples.inlineBlock),
      },
    };
    return [
      {
        name: 'web_fetch/bare-fetch@200KB',
        value: Number(ratio.toFixed(2)),
        unit: 'x',
        ...atMost(ratio, 1.5),
        details,
      },
      {
        name: 'web_fetch(converting inline)/bare-fetch@200KB',
        value: Number(inlineRatio.toFixed(2)),
        unit: 'x',
        ...atMost(inlineRatio, 1.5),
      },
      {
        name: 'guarded-fetch/bare-fetch@200KB',
        value: Number(guardRatio.toFixed(2)),
        unit: 'x',
        ...atMost(guardRatio, 1.5),
      },
      { name: 'bare-fetch.median', value: medians.bare, unit: 'ms' },
      { name: 'guarded-fetch.median', value: medians.guarded, unit: 'ms' },
      { name: 'html-to-markdown+cut.median', value: medians.conversion, unit: 'ms' },
      { name: 'web_fetch.median', value: medians.threaded, unit: 'ms' },
      { name: 'web_fetch(converting inline).median', value: medians.inline, unit: 'ms' },
      { name: 'event-loop-block.median (bare fetch)', value: medians.bareBlock, unit: 'ms' },
      { name: 'event-loop-block.median (web_fetch)', value: medians.threadedBlock, unit: 'ms' },
      { name: 'event-loop-block.median (converting inline)', value: medians.inlineBlock, unit: 'ms' },
    ];
  },
};

export default suite;
