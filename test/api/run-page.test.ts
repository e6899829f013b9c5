import { createAgentqClient, type AgentqClient } from '@agentq/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { adminLogin } from '../security/admin-helpers.js';
import {
  TEST_TOKEN,
  demoSpec,
  eventually,
  everythingServer,
  startTestDeployment,
  type TestDeployment,
} from './start-test-api.js';

/** The HTML of `path` as the logged-in operator sees it. */
async function pageOf(url: string, cookie: string, path: string): Promise<{ status: number; html: string }> {
  const response = await fetch(`${url}${path}`, { headers: { cookie }, redirect: 'manual' });
  return { status: response.status, html: await response.text() };
}

/** The `<li>` of the call to `tool` (the first one), up to its end. */
function callItem(html: string, tool: string): string {
  const start = html.indexOf(`data-tool="${tool}"`);
  expect(start, `a call to ${tool}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf('</li>', start));
}

describe('run pages (/admin/runs, /admin/runs/<id>) on a whole deployment', () => {
  let ctx: TestContext;
  let deployment: TestDeployment;
  let client: AgentqClient;
  let cookie: string;

  beforeAll(async () => {
    ctx = createTestContext();
    deployment = await startTestDeployment(ctx);
    client = createAgentqClient({ redisUrl: ctx.redisUrl, prefix: ctx.prefix });
    await client.putServer(everythingServer, { origin: 'operator' });
    await eventually(
      async () => ((await client.getCatalog('everything')).state === 'connected' ? true : undefined),
      60_000,
      'server-everything to be warmed',
    );
    cookie = await adminLogin(deployment.api.url, TEST_TOKEN);
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await deployment?.close();
    await ctx?.close();
  });

  it('shows each step and tool call, nests the call tool_invoke made, and approves from the run page', async () => {
    const url = deployment.api.url;
    const { runId } = await client.enqueueRun(demoSpec());
    await eventually(
      async () => ((await client.getRun(runId)).state === 'waiting-approval' ? true : undefined),
      60_000,
      'the demo run to park',
    );
    const parked = await pageOf(url, cookie, `/admin/runs/${runId}`);
    expect(parked.status).toBe(200);
    expect(parked.html).toContain('id="run-state">waiting-approval<');
    expect(parked.html).toContain('scripted:demo');
    for (const step of [0, 1, 2, 3]) expect(parked.html).toContain(`data-step="${step}"`);
    // One section per step, each once.
    expect(parked.html.match(/<section class="step"/g)).toHaveLength(4);
    // Each step names the catalog version of the server whose tools it was shown.
    const { steps } = await client.getRun(runId);
    const version = steps[0]?.catalogVersion?.everything;
    expect(version).toMatch(/^[0-9a-f]{16,}$/);
    expect(steps.map((step) => step.catalogVersion)).toEqual(steps.map(() => ({ everything: version })));
    expect(parked.html.match(new RegExp(`catalog: <code>everything@${version}</code>`, 'g'))).toHaveLength(4);
    expect(callItem(parked.html, 'tool_search')).toContain('add two numbers sum');
    const invoke = callItem(parked.html, 'tool_invoke');
    // The inner call sits in a nested list inside the tool_invoke call, with its own result and time.
    const inner = parked.html.slice(parked.html.indexOf('data-tool="tool_invoke"'));
    expect(inner.indexOf('<ol class="calls inner">')).toBeLessThan(
      inner.indexOf('data-tool="mcp__everything__getSum"'),
    );
    expect(invoke).toContain('badge-ok');
    expect(callItem(parked.html, 'mcp__everything__getSum')).toMatch(/class="duration">\d/);
    const echo = callItem(parked.html, 'mcp__everything__echo');
    expect(echo).toContain('badge-awaiting-approval');
    expect(echo).toContain('Hello from the agentq demo');
    expect(echo).toContain('value="approve"');
    expect(parked.html).toContain(`href="/admin/queues/queue/agent-runs/${runId}"`);

    // Approve from the run page: the form's CSRF token and the page to come back to.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(echo)?.[1] ?? '';
    const approvalId = /data-approval-id="([^"]+)"/.exec(echo)?.[1] ?? '';
    const decided = await fetch(`${url}/admin/approvals/${approvalId}/decision`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, decision: 'approve', reason: 'fine', next: `/admin/runs/${runId}` }),
      redirect: 'manual',
    });
    expect(decided.status).toBe(303);
    expect(decided.headers.get('location')).toMatch(new RegExp(`^/admin/runs/${runId}\\?notice=`));
    await client.waitForRun(runId, { timeoutMs: 60_000 });
    const done = await pageOf(url, cookie, `/admin/runs/${runId}`);
    expect(done.html).toContain('id="run-state">completed<');
    expect(done.html).toContain('Demo finished');
    const approved = callItem(done.html, 'mcp__everything__echo');
    expect(approved).toContain('badge-ok');
    expect(approved).toMatch(
      /approved<\/strong> by <strong class="decided-by">default<\/strong> via <span class="via">inbox/,
    );
    expect(done.html).not.toContain('http-equiv="refresh"');

    // The list shows it, filtered by state, and paginates.
    const list = await pageOf(url, cookie, '/admin/runs?state=completed');
    expect(list.status).toBe(200);
    expect(list.html).toContain(`data-run-id="${runId}"`);
    // Duration from enqueue to finish (the approval wait included) and the tokens it used.
    const finished = await client.getRun(runId);
    const row = list.html.slice(list.html.indexOf(`data-run-id="${runId}"`));
    expect(/class="run-duration" data-duration-ms="(\d+)"/.exec(row)?.[1]).toBe(
      String((finished.finishedAt ?? 0) - finished.createdAt),
    );
    expect(/class="run-tokens">(\d+)</.exec(row)?.[1]).toBe(String(finished.result?.usage.totalTokens));
    const waiting = await pageOf(url, cookie, '/admin/runs?state=waiting');
    expect(waiting.html).not.toContain(`data-run-id="${runId}"`);
  }, 180_000);

  it('times a run that waited for an approval from enqueue to finish, waits included', async () => {
    const url = deployment.api.url;
    const { runId } = await client.enqueueRun(demoSpec());
    const pending = await eventually(
      async () => (await client.getRun(runId)).pendingApprovals.find((entry) => entry.requestedAt !== undefined),
      60_000,
      'the demo run to park',
    );
    const requestedAt = pending.requestedAt as number;
    // While it waits, the page says so far, and refreshes as often as asked.
    const waiting = await pageOf(url, cookie, `/admin/runs/${runId}?refresh=1`);
    expect(waiting.html).toMatch(/id="run-duration"[^>]*>[^<]* so far/);
    expect(waiting.html).toContain('data-refresh-seconds="1"');
    expect(waiting.html).toContain('src="/admin/assets/live-refresh.js"');
    // The decision comes strictly later than the request, so the wait is never empty.
    await eventually(async () => (Date.now() > requestedAt ? true : undefined), 5_000, 'the clock to move');
    await client.decide({ approvalId: pending.approvalId, approved: true, via: 'rest' });
    await client.waitForRun(runId, { timeoutMs: 60_000 });
    const run = await client.getRun(runId);
    const decidedAt = (await client.getApproval(pending.approvalId)).decision?.decidedAt as number;

    const done = await pageOf(url, cookie, `/admin/runs/${runId}`);
    const cell = /<td id="run-duration" data-duration-ms="(\d+)" data-approval-wait-ms="(\d+)">([^<]*)</.exec(
      done.html,
    );
    expect(cell).not.toBeNull();
    const [, durationMs, approvalWaitMs, text] = cell as RegExpExecArray;
    // From enqueue to finish, across the pause: not the resumed slice alone.
    expect(Number(durationMs)).toBe((run.finishedAt as number) - run.createdAt);
    expect(Number(durationMs)).toBeGreaterThanOrEqual((run.finishedAt as number) - requestedAt);
    expect(Number(approvalWaitMs)).toBe(decidedAt - requestedAt);
    expect(text).not.toContain('so far');
    expect(text).toContain('waiting for approval');
  }, 120_000);

  it('pages through the run list', async () => {
    const url = deployment.api.url;
    for (let index = 0; index < 27; index += 1) {
      await client.enqueueRun(
        { assistant: { model: 'scripted:demo', mcpServers: [] }, input: { prompt: `page ${index}` } },
        { runId: `page-run-${String(index).padStart(2, '0')}` },
      );
    }
    const first = await pageOf(url, cookie, '/admin/runs');
    expect(first.html.match(/<tr data-run-id=/g)).toHaveLength(25);
    expect(first.html).toContain('id="next-page"');
    const second = await pageOf(url, cookie, '/admin/runs?offset=25');
    expect(second.html).toContain('id="previous-page"');
    const firstIds = [...first.html.matchAll(/data-run-id="([^"]+)"/g)].map((match) => match[1]);
    const secondIds = [...second.html.matchAll(/data-run-id="([^"]+)"/g)].map((match) => match[1]);
    expect(secondIds.length).toBeGreaterThan(0);
    expect(secondIds.filter((id) => firstIds.includes(id))).toEqual([]);
  }, 120_000);

  it('escapes hostile prompt, model text, tool arguments and tool output', async () => {
    const hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const { runId } = await client.enqueueRun({
      assistant: {
        model: 'scripted:hostile',
        mcpServers: ['everything'],
        contextWindow: 8_000,
        script: [
          { text: hostile, toolCalls: [{ toolName: 'tool_invoke', input: { name: hostile, params: { a: hostile } } }] },
          { text: `done ${hostile}` },
        ],
      },
      input: { prompt: hostile },
    });
    await client.waitForRun(runId, { timeoutMs: 60_000 });
    const { html } = await pageOf(deployment.api.url, cookie, `/admin/runs/${runId}`);
    // The refusal names the hostile tool name: that is the hostile tool output.
    expect(html).toContain('badge-refused');
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html.match(/&lt;img src=x onerror=alert\(1\)&gt;/g)?.length ?? 0).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
