import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, launchChromium } from './launch-chromium.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import {
  TEST_TOKEN,
  demoSpec,
  eventually,
  everythingServer,
  startTestDeployment,
  type TestDeployment,
} from '../api/start-test-api.js';

const artifacts = fileURLToPath(new URL('../artifacts/', import.meta.url));
const docsImages = fileURLToPath(new URL('../../docs/images/', import.meta.url));

/**
 * Saves a full-page screenshot under test/artifacts, and with AGENTQ_UPDATE_SCREENSHOTS=1 also
 * under docs/images, where the README shows it: the committed pictures come from this test.
 */
async function screenshot(page: Page, name: string): Promise<void> {
  const path = `${artifacts}${name}`;
  await page.screenshot({ path, fullPage: true });
  if (process.env.AGENTQ_UPDATE_SCREENSHOTS === '1') {
    await mkdir(docsImages, { recursive: true });
    await copyFile(path, `${docsImages}${name}`);
  }
}

describe('run and catalog pages in a real browser (Debian chromium via playwright-core)', () => {
  let ctx: TestContext;
  let deployment: TestDeployment;
  let client: AgentqClient;
  let browser: Browser;

  beforeAll(async () => {
    // Never skipped: without the browser this fails first, naming it and how to install it.
    findChromium();
    await mkdir(artifacts, { recursive: true });
    ctx = createTestContext();
    deployment = await startTestDeployment(ctx);
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    await client.putServer(everythingServer, { origin: 'operator' });
    await eventually(
      async () => ((await client.getCatalog('everything')).state === 'connected' ? true : undefined),
      60_000,
      'server-everything to be warmed',
    );
    browser = await launchChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await client?.close();
    await deployment?.close();
    await ctx?.close();
  });

  /** Logs `page` in as the test token, and enqueues a demo run that parks on its approval. */
  async function logInAndParkDemoRun(page: Page, base: string): Promise<string> {
    await page.goto(`${base}/admin/login`);
    await page.fill('#token', TEST_TOKEN);
    await Promise.all([page.waitForURL(/\/admin\/approvals/), page.click('button[type=submit]')]);
    const { runId } = await client.enqueueRun(demoSpec());
    await eventually(
      async () => ((await client.getRun(runId)).state === 'waiting-approval' ? true : undefined),
      60_000,
      'the demo run to park',
    );
    return runId;
  }

  it('follows a demo run step by step, approves it from its page, watches it finish, then refreshes a server on the catalog page', async () => {
    const base = deployment.api.url;
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    // No admin page may make the browser leave this machine (fonts, scripts, images...).
    const offsite: string[] = [];
    page.on('request', (request) => {
      const host = new URL(request.url()).hostname;
      if (!['127.0.0.1', 'localhost', '[::1]'].includes(host) && !request.url().startsWith('data:')) {
        offsite.push(request.url());
      }
    });

    const runId = await logInAndParkDemoRun(page, base);
    await page.goto(`${base}/admin/runs`);
    await Promise.all([page.waitForURL(/\/admin\/runs\/run-/), page.click(`tr[data-run-id="${runId}"] a`)]);
    await page.locator('#run-state', { hasText: /^waiting-approval$/ }).waitFor();
    // Every step, and every call in it; the call tool_invoke made, nested in it.
    expect(await page.locator('section.step').count()).toBe(4);
    for (const tool of ['tool_search', 'tool_inspect', 'tool_invoke', 'mcp__everything__echo']) {
      expect(await page.locator(`li.call[data-tool="${tool}"]`).count(), tool).toBe(1);
    }
    const nested = page.locator(
      'li.call[data-tool="tool_invoke"] ol.inner li.call[data-tool="mcp__everything__getSum"]',
    );
    expect(await nested.count()).toBe(1);
    expect(await nested.locator('.duration').textContent()).toMatch(/\d+(\.\d+)? m?s/);
    const echo = page.locator('li.call[data-tool="mcp__everything__echo"]');
    expect(await echo.locator('.badge').textContent()).toBe('awaiting approval');
    expect(await echo.textContent()).toContain('Hello from the agentq demo');
    await screenshot(page, 'run-page-waiting.png');

    // Approve right there; the page comes back and follows the run live until it completes.
    await echo.locator('input[name=reason]').fill('checked on the run page');
    await Promise.all([page.waitForURL(/notice=/), echo.locator('button[value=approve]').click()]);
    expect(await page.locator('.notice').textContent()).toContain('Approved');
    await page.locator('#run-state', { hasText: /^completed$/ }).waitFor({ timeout: 60_000 });
    expect(await page.locator('section.step').count()).toBe(5);
    expect(await page.locator('#run-result').textContent()).toContain('Echo: Hello from the agentq demo');
    const decided = page.locator('li.call[data-tool="mcp__everything__echo"] .approval');
    expect(await decided.textContent()).toMatch(/approved by default via inbox/);
    expect(await decided.textContent()).toContain('checked on the run page');
    await screenshot(page, 'run-page-completed.png');

    // The catalog: one summary row per server with state and age, wire names folded below; a
    // refresh resets the age.
    await page.goto(`${base}/admin/catalog`);
    const server = page.locator('tr.server[data-server-id="everything"]');
    expect(await server.locator('.server-state').textContent()).toBe('connected');
    const details = page.locator('details.server-details[data-server-id="everything"]');
    await details.locator('summary').click();
    expect(await details.locator('.wire-name', { hasText: 'mcp__everything__echo' }).count()).toBe(1);
    const ageBefore = Number(await server.locator('.age').getAttribute('data-age-ms'));
    const refreshedBefore = (await client.getCatalog('everything')).refreshedAt ?? 0;
    // Old enough that a reset cannot be mistaken for the same read.
    await eventually(
      async () => (Date.now() - refreshedBefore > 1_500 ? true : undefined),
      10_000,
      'the cached list to age',
    );
    await Promise.all([page.waitForURL(/notice=/), server.locator('button.refresh').click()]);
    await eventually(
      async () => (((await client.getCatalog('everything')).refreshedAt ?? 0) > refreshedBefore ? true : undefined),
      60_000,
      'the refresh to land',
    );
    await page.goto(`${base}/admin/catalog`);
    const ageAfter = Number(await server.locator('.age').getAttribute('data-age-ms'));
    expect(ageAfter).toBeLessThan(Math.max(ageBefore, Date.now() - refreshedBefore));
    expect(await server.locator('.server-state').textContent()).toBe('connected');
    await screenshot(page, 'catalog-page.png');

    // Bull Board, too, loads nothing from elsewhere.
    await page.goto(`${base}/admin/queues`);
    await page.getByText('agent-runs', { exact: true }).first().waitFor({ timeout: 30_000 });
    expect(offsite).toEqual([]);
    await context.close();
  }, 240_000);

  it('keeps a half-typed approval reason through the live refresh of a waiting run', async () => {
    const base = deployment.api.url;
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    const runId = await logInAndParkDemoRun(page, base);
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });
    // A one-second refresh (the page's own default while waiting is 10 s): it does reload the page.
    await page.goto(`${base}/admin/runs/${encodeURIComponent(runId)}?refresh=1`);
    const loaded = navigations;
    await page.waitForEvent('framenavigated', { timeout: 30_000 });
    await page.waitForLoadState('load');
    expect(navigations).toBeGreaterThan(loaded);

    // Typing holds it: focused, then with the field left but not empty.
    // (Typed again if a reload landed while typing: the text must be in place when a refresh is due.)
    const reason = page.locator('li.call[data-tool="mcp__everything__echo"] input[name=reason]');
    const typed = 'half-typed reason, keep me';
    // How many refreshes the page held back; the page's CSP allows no evaluated script, so read it.
    const held = async () => Number((await page.locator('body').getAttribute('data-refresh-held')) ?? 0);
    await expect
      .poll(
        async () => {
          if ((await reason.inputValue()) !== typed) await reason.fill(typed);
          return await held();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(1);
    const typedAt = navigations;
    await reason.blur();
    await expect.poll(held, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    expect(navigations).toBe(typedAt);
    expect(await reason.inputValue()).toBe(typed);

    // A pointer resting on a decision form holds it too: a reload under the cursor could put another
    // row's button where the person is about to click. (Hovered again if a reload landed first.)
    const echo = page.locator('li.call[data-tool="mcp__everything__echo"]');
    const approve = echo.locator('button[value=approve]');
    await reason.fill('');
    await reason.blur();
    const clearedAt = navigations;
    await expect.poll(() => navigations, { timeout: 30_000 }).toBeGreaterThan(clearedAt);
    await page.waitForLoadState('load');
    await expect
      .poll(
        async () => {
          await approve.hover();
          return await held();
        },
        { timeout: 30_000 },
      )
      .toBeGreaterThanOrEqual(1);
    const hoveredAt = navigations;
    await expect.poll(held, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
    expect(navigations).toBe(hoveredAt);
    // Moved away, the page refreshes again.
    await page.mouse.move(1, 1);
    await expect.poll(() => navigations, { timeout: 30_000 }).toBeGreaterThan(hoveredAt);
    await page.waitForLoadState('load');

    // And the reason typed is the one recorded (typing holds the refresh until the click).
    await reason.fill(typed);
    await Promise.all([page.waitForURL(/notice=/), echo.locator('button[value=approve]').click()]);
    await client.waitForRun(runId, { timeoutMs: 60_000 });
    const result = await client.getRun(runId);
    const call = result.result?.toolCalls.find((each) => each.toolName === 'mcp__everything__echo');
    expect(call?.approval).toMatchObject({ approved: true, reason: typed });
    await context.close();
  }, 180_000);
});
