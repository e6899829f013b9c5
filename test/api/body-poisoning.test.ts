import type { RunningApi } from '@agentq/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestApi, type ApiCaller } from './start-test-api.js';

const spec = { assistant: { model: 'scripted:demo' }, input: { prompt: 'poisoned' } };

describe('prototype poisoning in request bodies', () => {
  let ctx: TestContext;
  let api: RunningApi;
  let http: ApiCaller;

  beforeAll(async () => {
    ctx = createTestContext();
    ({ api, http } = await startTestApi(ctx));
  });

  afterAll(async () => {
    await api?.close();
    await ctx?.close();
  });

  it('refuses __proto__ and constructor.prototype keys at any depth, and pollutes nothing', async () => {
    const bodies = [
      `{"spec":${JSON.stringify(spec)},"__proto__":{"polluted":true}}`,
      `{"spec":{"assistant":{"model":"scripted:demo","__proto__":{"polluted":true}},"input":{"prompt":"x"}}}`,
      `{"spec":${JSON.stringify(spec)},"constructor":{"prototype":{"polluted":true}}}`,
      `{"spec":{"assistant":{"model":"scripted:demo"},"input":{"prompt":"x","constructor":{"prototype":{"polluted":true}}}}}`,
    ];
    for (const body of bodies) {
      const answer = await http.call('POST', '/v1/runs', { body });
      expect([answer.status, answer.body.error.code], body).toEqual([400, 'VALIDATION']);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
