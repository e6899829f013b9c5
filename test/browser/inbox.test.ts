import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import type { Browser } from 'playwright-core';
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

describe('admin pages in a real browser (Debian chromium via playwright-core)', () => {
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
      45_000,
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

  it('logs in, shows the queues in Bull Board, and approves a pending call in the inbox until the run completes', async () => {
    const page = await browser.newPage();
    const base = deployment.api.url;

    // Anonymous: the inbox sends us to the login form.
    await page.goto(`${base}/admin/approvals`);
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await page.fill('#token', 'not-the-token-at-all');
    await page.click('button[type=submit]');
    await page.waitForSelector('.error');
    await page.fill('#token', TEST_TOKEN);
    await Promise.all([page.waitForURL(/\/admin\/approvals/), page.click('button[type=submit]')]);
    const cookies = await page.context().cookies();
    const session = cookies.find((cookie) => cookie.name === 'agentq_session');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict' });
    await page.screenshot({ path: `${artifacts}browser-01-inbox-empty.png`, fullPage: true });

    // Bull Board lists the queues, under the admin pages' Content-Security-Policy.
    const refusedScripts: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text()) && /script/i.test(message.text())) {
        refusedScripts.push(message.text());
      }
    });
    await page.goto(`${base}/admin/queues`);
    for (const queue of ['agent-runs', 'catalog-refresh', 'approvals', 'decisions']) {
      await page.getByText(queue, { exact: true }).first().waitFor({ timeout: 30_000 });
    }
    await page.screenshot({ path: `${artifacts}browser-02-bull-board.png`, fullPage: true });
    expect(refusedScripts).toEqual([]);
    // Bull Board's own calls come from this origin, so its changes still work in the browser.
    const paused = await page.evaluate(async () => {
      const response = await fetch('/admin/queues/api/queues/agent-runs/pause', { method: 'PUT' });
      return response.status;
    });
    expect(paused).toBe(200);
    const resumed = await page.evaluate(async () => {
      const response = await fetch('/admin/queues/api/queues/agent-runs/resume', { method: 'PUT' });
      return response.status;
    });
    expect(resumed).toBe(200);

    // A run that needs approval shows up in the inbox with its tool and arguments.
    const { runId } = await client.enqueueRun(demoSpec());
    await eventually(
      async () => ((await client.getRun(runId)).state === 'waiting-approval' ? true : undefined),
      45_000,
      'the run to park',
    );
    await page.goto(`${base}/admin/approvals`);
    const row = page.locator('tr', { hasText: runId });
    await row.waitFor();
    expect(await row.textContent()).toContain('mcp__everything__echo');
    expect(await row.textContent()).toContain('Hello from the agentq demo');
    await page.screenshot({ path: `${artifacts}browser-03-inbox-pending.png`, fullPage: true });

    await row.locator('input[name=reason]').fill('looks harmless');
    await Promise.all([page.waitForURL(/notice=/), row.locator('button[value=approve]').click()]);
    expect(await page.locator('.notice').textContent()).toContain('Approved');
    // Recorded as the token that logged in (AGENTQ_API_TOKEN is named `default`), via the inbox.
    expect(await page.locator('.notice').textContent()).toContain('as default');
    expect(await page.locator(`tr:has-text("${runId}")`).count()).toBe(0);

    // The notice links to the run, whose page refreshes itself until the run is done.
    await Promise.all([page.waitForURL(/\/admin\/runs\//), page.click('#run-link')]);
    expect(decodeURIComponent(new URL(page.url()).pathname)).toBe(`/admin/runs/${runId}`);
    await page.locator('#run-state', { hasText: /^completed$/ }).waitFor({ timeout: 45_000 });
    expect(await page.locator('#run-result').textContent()).toContain('Echo: Hello from the agentq demo');
    await page.screenshot({ path: `${artifacts}browser-04-run-completed.png`, fullPage: true });
    const result = await client.getRun(runId);
    expect(result.state).toBe('completed');
    const echo = result.result?.toolCalls.find((call) => call.toolName === 'mcp__everything__echo');
    expect(echo?.approval).toMatchObject({ approved: true, reason: 'looks harmless' });
    const audit = await client.getApproval(echo?.approval?.approvalId as string);
    expect(audit.decision).toMatchObject({ approved: true, decidedBy: 'default', via: 'inbox' });
    await page.close();
  }, 180_000);
});
