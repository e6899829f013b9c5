import type { RunningApi } from '@agentq/api';
import { QUEUE_NAMES } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { TEST_TOKEN, startTestApi, type ApiCaller } from './start-test-api.js';

const spec = { assistant: { model: 'scripted:demo' }, input: { prompt: 'hello' } };

/** Asserts the one error shape of the API: `{ error: { code, message } }` and nothing else at the top. */
function expectErrorShape(body: unknown, code: string) {
  expect(body).toEqual({ error: expect.objectContaining({ code, message: expect.any(String) }) });
}

describe('REST errors, probes and small pages (API alone, real Redis)', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
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

  it('creates, reads and cancels a run whose id has 128 characters, and answers longer ids in the one shape', async () => {
    const runId = `r${'x'.repeat(127)}`;
    const created = await http.call('POST', '/v1/runs', { body: { runId, spec } });
    expect(created.status).toBe(201);
    const read = await http.call('GET', `/v1/runs/${runId}`);
    expect(read.status).toBe(200);
    expect(read.body.runId).toBe(runId);
    const cancelled = await http.call('DELETE', `/v1/runs/${runId}`);
    expect(cancelled).toMatchObject({ status: 200, body: { runId } });
    const gone = await http.call('GET', `/v1/runs/${runId}`);
    expect(gone.status).toBe(404);
    expectErrorShape(gone.body, 'NOT_FOUND');

    // One over the limit: the schema names the field.
    const tooLong = await http.call('GET', `/v1/runs/${runId}x`);
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error).toMatchObject({ code: 'VALIDATION', field: 'runId' });
    // Far over any id: the router refuses, still in the one shape.
    const huge = await http.call('DELETE', `/v1/runs/${'y'.repeat(500)}`);
    expect(huge.status).toBe(414);
    expectErrorShape(huge.body, 'URI_TOO_LONG');
    const badUrl = await http.call('GET', '/v1/runs/%E0%A4%A');
    expect(badUrl.status).toBe(400);
    expectErrorShape(badUrl.body, 'VALIDATION');
  });

  it('answers an id its route does not take with a 400 naming it up to 200 characters, and 414 past that, on every id route', async () => {
    // Up to the router's limit, each route's schema names the parameter.
    for (const [method, path, field] of [
      ['GET', `/v1/runs/${'r'.repeat(200)}`, 'runId'],
      ['DELETE', `/v1/schedules/${'s'.repeat(150)}`, 'scheduleId'],
      ['GET', `/v1/servers/${'s'.repeat(64)}/authorization`, 'serverId'],
      ['GET', `/v1/catalog/${'c'.repeat(150)}`, 'serverId'],
      ['GET', `/v1/approvals/${'a'.repeat(200)}x`, undefined],
      ['POST', `/v1/approvals/${'a'.repeat(200)}x/decision`, undefined],
    ] as const) {
      const response = await http.call(method, path, method === 'POST' ? { body: { approved: true } } : {});
      if (field === undefined) {
        expect(response.status, path).toBe(414);
        expectErrorShape(response.body, 'URI_TOO_LONG');
      } else {
        expect(response.status, `${method} ${path}`).toBe(400);
        expect(response.body.error, path).toMatchObject({ code: 'VALIDATION', field });
      }
    }
    const overLimit = await http.call('GET', `/v1/runs/${'r'.repeat(201)}`);
    expect(overLimit.status).toBe(414);
    expectErrorShape(overLimit.body, 'URI_TOO_LONG');
  });

  it('refuses a query key a route does not take, on routes without query parameters too', async () => {
    for (const path of [
      '/v1/runs/r1?bogus=1',
      '/v1/catalog/everything?bogus=1',
      '/v1/catalog/everything?version=v1&bogus=1',
      '/v1/servers?bogus=1',
      '/v1/schedules?bogus=1',
      '/v1/kbs?bogus=1',
    ]) {
      const response = await http.call('GET', path);
      expect(response.status, path).toBe(400);
      expect(response.body.error, path).toMatchObject({ code: 'VALIDATION', field: 'bogus' });
    }
  });

  it('answers unknown routes, wrong methods and broken JSON in the one shape', async () => {
    const unknown = await http.call('GET', '/v1/nothing-here');
    expect(unknown.status).toBe(404);
    expectErrorShape(unknown.body, 'NOT_FOUND');
    const method = await http.call('PATCH', '/v1/runs');
    expect(method.status).toBe(404);
    expectErrorShape(method.body, 'NOT_FOUND');
    const broken = await http.call('POST', '/v1/runs', { body: '{"spec":' });
    expect(broken.status).toBe(400);
    expectErrorShape(broken.body, 'INVALID_JSON');
  });

  it('answers a form or text body with 415 asking for application/json', async () => {
    for (const [type, text] of [
      ['application/x-www-form-urlencoded', 'spec=x'],
      ['text/plain', JSON.stringify({ spec })],
      ['application/xml', '<spec/>'],
    ] as const) {
      const response = await fetch(`${http.url}/v1/runs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TEST_TOKEN}`, 'content-type': type },
        body: text,
      });
      expect(response.status, type).toBe(415);
      const body = (await response.json()) as { error: { message: string } };
      expectErrorShape(body, 'UNSUPPORTED_MEDIA_TYPE');
      expect(body.error.message).toContain('application/json');
    }
    // JSON with a charset is still JSON.
    const ok = await http.call('POST', '/v1/runs', {
      body: JSON.stringify({ spec }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(ok.status).toBe(201);
  });

  it('names the deepest bad field, inside the input union too', async () => {
    const response = await http.call('POST', '/v1/runs', {
      body: { spec: { assistant: { model: 'scripted:demo' }, input: { prompt: 42 } } },
    });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION', field: 'spec.input.prompt' });
    expect(response.body.error.message).not.toContain('Unrecognized key');
  });

  it('opens /healthz and /readyz to probes, with status words only', async () => {
    const health = await http.call('GET', '/healthz', { token: null });
    expect(health).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(Object.keys(health.body)).toEqual(['status']);
    const ready = await http.call('GET', '/readyz', { token: null });
    expect(ready).toMatchObject({ status: 200, body: { status: 'ready' } });
    expect(Object.keys(ready.body)).toEqual(['status']);
    // The rest still needs the token.
    expect((await http.call('GET', '/metrics', { token: null })).status).toBe(401);
  });

  it('serves a favicon without a token', async () => {
    const response = await fetch(`${http.url}/favicon.ico`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/x-icon');
    const bytes = Buffer.from(await response.arrayBuffer());
    // ICONDIR: reserved 0, type 1 (icon), one image.
    expect([bytes.readUInt16LE(0), bytes.readUInt16LE(2), bytes.readUInt16LE(4)]).toEqual([0, 1, 1]);
  });

  it('serves Bull Board without links off this server', async () => {
    const page = await fetch(`${http.url}/admin/queues`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('static/css');
    expect(html).not.toMatch(/(?:href|src)=["']?(?:https?:)?\/\//);
  });
});
