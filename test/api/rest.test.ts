import type { RunningApi } from '@agentq/api';
import { digestOf, QUEUE_NAMES } from '@agentq/shared';
import { CatalogStore } from '@agentq/store';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { putServer, writeCatalogEntry } from '../worker/helpers/catalog.js';
import { TEST_TOKEN, parseExposition, startTestApi, testConfig, type ApiCaller } from './start-test-api.js';

const spec = (prompt = 'hello') => ({ assistant: { model: 'scripted:demo' }, input: { prompt } });

describe('REST API (API process alone, real Redis)', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    // The operator lets the API define this one stdio command (AGENTQ_STDIO_COMMANDS).
    ({ api, http } = await startTestApi(ctx, testConfig(ctx, { AGENTQ_STDIO_COMMANDS: 'mcp-server-memory' })));
  });

  afterAll(async () => {
    await api.close();
    for (const name of Object.values(QUEUE_NAMES)) {
      const queue = new Queue(name, { connection: ctx.redis, prefix: ctx.prefix });
      await queue.obliterate({ force: true });
      await queue.close();
    }
    await ctx.close();
  });

  it('answers /healthz and /readyz without a token and nothing else', async () => {
    expect((await http.call('GET', '/healthz', { token: null })).status).toBe(200);
    const paths = ['/v1/runs/x', '/v1/servers', '/v1/openapi.json', '/metrics', '/v1/schedules', '/v1/nope'];
    for (const path of paths) {
      const anonymous = await http.call('GET', path, { token: null });
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body.error.code).toBe('UNAUTHORIZED');
      expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
      expect((await http.call('GET', path, { token: `${TEST_TOKEN}x` })).status, path).toBe(401);
    }
    expect((await http.call('POST', '/v1/runs', { token: null, body: { spec: spec() } })).status).toBe(401);
    expect(await http.call('GET', '/readyz')).toMatchObject({ status: 200, body: { status: 'ready' } });
  });

  it('rejects bad bodies with 400 VALIDATION naming the field, and writes nothing', async () => {
    const badModel = await http.call('POST', '/v1/runs', {
      body: { spec: { assistant: { model: 'gpt' }, input: { prompt: 'x' } } },
    });
    expect(badModel.status).toBe(400);
    expect(badModel.body.error).toMatchObject({ code: 'VALIDATION', field: 'spec.assistant.model' });
    const extra = await http.call('POST', '/v1/runs', { body: { spec: spec(), surprise: 1 } });
    expect(extra.body.error).toMatchObject({ code: 'VALIDATION' });
    const broken = await http.call('POST', '/v1/runs', { body: '{"spec":' });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('INVALID_JSON');
    const schedule = await http.call('PUT', '/v1/schedules/s1', { body: { spec: spec() } });
    expect(schedule.body.error).toMatchObject({ code: 'VALIDATION', field: 'cron' });
    const decision = await http.call('POST', '/v1/approvals/a1/decision', { body: { approved: 'yes' } });
    expect(decision.body.error).toMatchObject({ code: 'VALIDATION', field: 'approved' });
    // An unknown key is named itself, in a body, inside a spec and in a query.
    const unknownKey = await http.call('POST', '/v1/approvals/a1/decision', {
      body: { approved: true, decidedBy: 'bob' },
    });
    expect(unknownKey.body.error).toMatchObject({ code: 'VALIDATION', field: 'decidedBy' });
    const typo = await http.call('POST', '/v1/runs', {
      body: { assistant: { model: 'scripted:demo', typo: 1 }, input: { prompt: 'x' } },
    });
    expect(typo.body.error).toMatchObject({ code: 'VALIDATION', field: 'spec.assistant.typo' });
    const query = await http.call('GET', '/v1/runs/rest-1?waitMs=1&wait=1');
    expect(query.body.error).toMatchObject({ code: 'VALIDATION', field: 'wait' });
    const server = await http.call('PUT', '/v1/servers/s1', { body: { transport: { type: 'ftp' } } });
    expect(server.body.error).toMatchObject({ code: 'VALIDATION', field: 'transport.type' });
    const messages = (part: unknown) => ({
      spec: {
        assistant: { model: 'scripted:demo' },
        input: { messages: [{ role: 'user', content: [{ type: 'text', text: 'look' }, part] }] },
      },
    });
    for (const [part, field] of [
      [{ type: 'image', image: 'not-a-url' }, 'spec.input.messages.0.content.1.image'],
      [{ type: 'image', image: 'file:///etc/passwd' }, 'spec.input.messages.0.content.1.image'],
      [
        { type: 'file', data: 'gopher://example.com/x', mediaType: 'application/pdf' },
        'spec.input.messages.0.content.1.data',
      ],
      [{ type: 'file', data: 'AAAA', mediaType: 'pdf' }, 'spec.input.messages.0.content.1.mediaType'],
    ] as const) {
      const badPart = await http.call('POST', '/v1/runs', { body: messages(part) });
      expect(badPart.status, field).toBe(400);
      expect(badPart.body.error).toMatchObject({ code: 'VALIDATION', field });
    }
    const badId = await http.call('GET', '/v1/runs/a:b');
    expect(badId.body.error).toMatchObject({ code: 'VALIDATION', field: 'runId' });
    const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    expect(await runs.count()).toBe(0);
    await runs.close();
  });

  it('enqueues runs idempotently, answers 404 and 409, and cancels', async () => {
    const created = await http.call('POST', '/v1/runs', { body: { runId: 'rest-1', spec: spec() } });
    expect(created).toMatchObject({ status: 201, body: { runId: 'rest-1', created: true } });
    expect(await http.call('POST', '/v1/runs', { body: { runId: 'rest-1', spec: spec() } })).toMatchObject({
      status: 200,
      body: { created: false },
    });
    const conflict = await http.call('POST', '/v1/runs', { body: { runId: 'rest-1', spec: spec('else') } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('CONFLICT');
    const run = await http.call('GET', '/v1/runs/rest-1?waitMs=50');
    expect(run).toMatchObject({ status: 200, body: { runId: 'rest-1', state: 'waiting' } });
    expect((await http.call('GET', '/v1/runs/nope')).body.error.code).toBe('NOT_FOUND');
    expect((await http.call('GET', '/v1/runs/nope')).status).toBe(404);
    expect(
      await http.call('DELETE', '/v1/runs/rest-1', { headers: { 'content-type': 'application/json' } }),
    ).toMatchObject({
      status: 200,
      body: { previousState: 'waiting' },
    });
    expect((await http.call('DELETE', '/v1/runs/rest-1')).status).toBe(404);
    expect((await http.call('GET', '/v1/no-such-route')).status).toBe(404);
  });

  it('also takes the run spec itself as the body', async () => {
    const created = await http.call('POST', '/v1/runs', { body: spec() });
    expect(created.status).toBe(201);
    expect(created.body.created).toBe(true);
    expect((await http.call('GET', `/v1/runs/${String(created.body.runId)}`)).status).toBe(200);
    const bad = await http.call('POST', '/v1/runs', { body: { assistant: { model: 'gpt' }, input: { prompt: 'x' } } });
    expect(bad.body.error).toMatchObject({ code: 'VALIDATION', field: 'spec.assistant.model' });
  });

  it('names an unknown MCP server under spec., like every other spec error, in either body form', async () => {
    const ghost = { assistant: { model: 'scripted:demo', mcpServers: ['ghost'] }, input: { prompt: 'x' } };
    const ghostTool = { assistant: { model: 'scripted:demo' }, input: { prompt: 'x' }, tools: ['ghost:t'] };
    for (const [body, field] of [
      [ghost, 'spec.assistant.mcpServers.0'],
      [{ spec: ghost }, 'spec.assistant.mcpServers.0'],
      [{ runId: 'ghost-run', spec: ghost }, 'spec.assistant.mcpServers.0'],
      [ghostTool, 'spec.tools.0'],
    ] as const) {
      const refused = await http.call('POST', '/v1/runs', { body });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION', field });
      expect(refused.body.error.message).toContain('ghost');
    }
    const schedule = await http.call('PUT', '/v1/schedules/ghost', { body: { everyMs: 60_000, spec: ghostTool } });
    expect(schedule.status).toBe(400);
    expect(schedule.body.error).toMatchObject({ code: 'VALIDATION', field: 'spec.tools.0' });
    // The schedule's own fields stay where they are.
    const untimed = await http.call('PUT', '/v1/schedules/ghost', { body: { spec: ghost } });
    expect(untimed.body.error).toMatchObject({ code: 'VALIDATION', field: 'cron' });
  });

  it('refuses a schedule in a time zone the runtime does not know, naming timezone', async () => {
    const mars = await http.call('PUT', '/v1/schedules/mars', {
      body: { cron: '0 3 * * *', timezone: 'Mars/Olympus', spec: spec() },
    });
    expect(mars.status).toBe(400);
    expect(mars.body.error).toMatchObject({ code: 'VALIDATION', field: 'timezone' });
    expect(mars.body.error.message).toContain('time zone');
  });

  it('manages schedules and servers, with 404 and 409 where they apply', async () => {
    const schedule = await http.call('PUT', '/v1/schedules/nightly', { body: { cron: '0 3 * * *', spec: spec() } });
    expect(schedule).toMatchObject({ status: 200, body: { scheduleId: 'nightly', cron: '0 3 * * *' } });
    const listed = (await http.call('GET', '/v1/schedules')).body.schedules;
    expect(listed.map((entry: { scheduleId: string }) => entry.scheduleId)).toEqual(['nightly']);
    // The PUT and the list tell the same next firing, to the millisecond.
    expect(typeof schedule.body.nextRunAt).toBe('number');
    expect(schedule.body.nextRunAt).toBe(listed[0].nextRunAt);
    // The schedule's next run is the schedule's: DELETE on it says how to stop it.
    const runs = new Queue(QUEUE_NAMES.agentRuns, { connection: ctx.redis, prefix: ctx.prefix });
    const [next] = await runs.getDelayed();
    await runs.close();
    expect(next?.id).toMatch(/^repeat:nightly:/);
    const refused = await http.call('DELETE', `/v1/runs/${String(next?.id)}`);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT' });
    expect(refused.body.error.message).toContain('schedule nightly');
    expect(refused.body.error.message).toContain('DELETE /v1/schedules/nightly');
    expect((await http.call('DELETE', '/v1/schedules/nightly')).status).toBe(204);
    expect((await http.call('DELETE', '/v1/schedules/nightly')).status).toBe(404);

    const definition = { transport: { type: 'stdio', command: 'mcp-server-memory' }, alwaysAsk: ['delete_entities'] };
    expect(await http.call('PUT', '/v1/servers/memory', { body: definition })).toMatchObject({
      status: 200,
      body: { id: 'memory', enabled: true },
    });
    expect(
      (await http.call('PUT', '/v1/servers/memory', { body: { ...definition, id: 'other' } })).body.error,
    ).toMatchObject({
      code: 'VALIDATION',
      field: 'id',
    });
    expect((await http.call('GET', '/v1/servers')).body.servers).toHaveLength(1);
    expect((await http.call('GET', '/v1/catalog/memory')).body).toMatchObject({ state: 'never-warmed', tools: [] });
    expect((await http.call('POST', '/v1/servers/memory/refresh')).status).toBe(202);
    expect((await http.call('POST', '/v1/servers/memory/disable')).body.enabled).toBe(false);
    const disabled = await http.call('POST', '/v1/servers/memory/restart');
    expect(disabled.status).toBe(409);
    expect(disabled.body.error.code).toBe('CONFLICT');
    expect((await http.call('POST', '/v1/servers/ghost/enable')).status).toBe(404);
    expect((await http.call('GET', '/v1/catalog/ghost')).status).toBe(404);
    expect((await http.call('DELETE', '/v1/servers/memory')).status).toBe(204);
    expect((await http.call('DELETE', '/v1/servers/memory')).status).toBe(404);
  });

  it('answers ?version= on the catalog route with the pinned tools of that version, 404 when not kept', async () => {
    const transport = { type: 'stdio' as const, command: '/nonexistent/never-started' };
    const definition = await putServer({ redis: ctx.redis, prefix: ctx.prefix, definition: { id: 'pins', transport } });
    const tools = [{ name: 'look', description: 'Looks.', inputSchema: { type: 'object' as const } }];
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools });
    const version = digestOf(tools);
    // A run shown this version pins it; then the server moves on.
    await new CatalogStore({ redis: ctx.redis, prefix: ctx.prefix }).pinSnapshots([{ serverId: 'pins', version }], 60);
    await writeCatalogEntry({ redis: ctx.redis, prefix: ctx.prefix, definition, tools: [] });

    const live = await http.call('GET', '/v1/catalog/pins');
    expect(live.status).toBe(200);
    expect(live.body.tools).toEqual([]);
    const pinned = await http.call('GET', `/v1/catalog/pins?version=${version}`);
    expect(pinned).toMatchObject({ status: 200, body: { serverId: 'pins', version, tools: [{ name: 'look' }] } });
    expect(pinned.body.refreshedAt).toEqual(expect.any(Number));
    const gone = await http.call('GET', '/v1/catalog/pins?version=nope');
    expect(gone.status).toBe(404);
    expect(gone.body.error).toMatchObject({ code: 'NOT_FOUND', field: 'version' });
    // A version is never a key pattern, a blank or an essay: refused before Redis is read.
    for (const bad of ['a*b', 'a%3Ab', 'a%20b', 'v'.repeat(129), '']) {
      const refused = await http.call('GET', `/v1/catalog/pins?version=${bad}`);
      expect(refused.status, bad).toBe(400);
      expect(refused.body.error, bad).toMatchObject({ code: 'VALIDATION', field: 'version' });
    }
    await http.call('DELETE', '/v1/servers/pins');
  });

  it('serves an OpenAPI 3.1 document that lists every route it answers', async () => {
    const { status, body } = await http.call('GET', '/v1/openapi.json');
    expect(status).toBe(200);
    expect(body.openapi).toBe('3.1.0');
    const operations = Object.entries(body.paths as Record<string, Record<string, unknown>>).flatMap(
      ([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /v1/runs',
        'GET /v1/runs/{runId}',
        'DELETE /v1/runs/{runId}',
        'PUT /v1/schedules/{scheduleId}',
        'GET /v1/approvals',
        'POST /v1/approvals/{approvalId}/decision',
        'PUT /v1/servers/{serverId}',
        'POST /v1/servers/{serverId}/refresh',
        'GET /v1/catalog/{serverId}',
      ]),
    );
    // Every documented operation exists: none of them answers "no such route".
    for (const operation of operations) {
      const [method, path] = operation.split(' ') as [string, string];
      const response = await http.call(method, path.replace(/\{[^}]+\}/g, 'x1'));
      expect(response.body?.error?.message ?? '', operation).not.toBe('No such route');
    }
  });

  it('exposes Prometheus metrics that parse', async () => {
    const response = await fetch(`${http.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(response.headers.get('content-type')).toContain('text/plain');
    const samples = parseExposition(await response.text());
    expect(samples.has('agentq_queue_jobs{queue="agent-runs",state="waiting"}')).toBe(true);
  });

  describe('admin pages', () => {
    async function login(): Promise<string> {
      const response = await fetch(`${http.url}/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: TEST_TOKEN, next: '/admin/queues' }).toString(),
        redirect: 'manual',
      });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe('/admin/queues');
      const setCookie = response.headers.get('set-cookie') ?? '';
      expect(setCookie).toMatch(/HttpOnly/i);
      expect(setCookie).toMatch(/SameSite=Strict/i);
      return setCookie.split(';')[0] as string;
    }

    it('send anonymous visitors to the login form and refuse a wrong token', async () => {
      for (const path of ['/admin/queues', '/admin/approvals']) {
        const response = await fetch(`${http.url}${path}`, { redirect: 'manual' });
        expect(response.status, path).toBe(303);
        expect(response.headers.get('location')).toMatch(/^\/admin\/login\?next=/);
      }
      expect((await fetch(`${http.url}/admin/queues/api/queues`, { redirect: 'manual' })).status).toBe(401);
      const wrong = await fetch(`${http.url}/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=wrong-token-wrong-token',
        redirect: 'manual',
      });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('set-cookie')).toBeNull();
    });

    it('show Bull Board with every queue (kb-ingest too), approvals read-only, after login', async () => {
      const cookie = await login();
      const board = await fetch(`${http.url}/admin/queues`, { headers: { cookie } });
      expect(board.status).toBe(200);
      const queues = (await (
        await fetch(`${http.url}/admin/queues/api/queues?activeQueue=&page=1&jobsPerPage=10`, { headers: { cookie } })
      ).json()) as {
        queues: Array<{ name: string; readOnlyMode: boolean }>;
      };
      const byName = Object.fromEntries(queues.queues.map((queue) => [queue.name, queue.readOnlyMode]));
      expect(byName).toEqual({
        'catalog-refresh': false,
        'agent-runs': false,
        approvals: true,
        decisions: false,
        'kb-ingest': false,
      });
    });

    it('refuse an inbox decision without the CSRF token', async () => {
      const cookie = await login();
      const response = await fetch(`${http.url}/admin/approvals/a1/decision`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'decision=approve',
        redirect: 'manual',
      });
      expect(response.status).toBe(403);
      const forged = await fetch(`${http.url}/admin/approvals/a1/decision`, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: 'decision=approve&_csrf=0123',
        redirect: 'manual',
      });
      expect(forged.status).toBe(403);
    });
  });
});
