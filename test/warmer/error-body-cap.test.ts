import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  send,
  startLoopbackServer,
  type LoopbackServer,
} from '../../packages/builtin-tools/src/test-support/loopback-server.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from './warmer-harness.js';

// An MCP server over HTTP that fails with a huge error answer: the warmer reads only
// AGENTQ_ERROR_BODY_MAX_BYTES of it, so the error it records quotes no more than that.
describe('error answers of an MCP server, in the warmer', () => {
  let harness: WarmerHarness;
  let site: LoopbackServer;

  beforeAll(async () => {
    harness = await createWarmerHarness();
    site = await startLoopbackServer((_request, response) => send(response, 500, 'text/plain', 'x'.repeat(50_000)));
    await harness.startWarmer({ env: { AGENTQ_ERROR_BODY_MAX_BYTES: '200' } });
  });

  afterAll(async () => {
    await harness?.close();
    await site?.close();
  });

  it('are read only up to AGENTQ_ERROR_BODY_MAX_BYTES', async () => {
    await harness.putServer({
      id: 'loud',
      transport: { type: 'streamable-http', url: `${site.origin}/mcp` },
      timeouts: { connectMs: 30_000, listMs: 30_000, callMs: 5_000 },
    });
    const status = await waitFor(
      async () => {
        const current = await harness.status('loud');
        return current?.error ? current : undefined;
      },
      { what: 'the failure recorded' },
    );
    expect(status.state).toBe('error');
    // The quoted body is at most 200 bytes; the default (8192) would fill the 2 000-character cap.
    const quoted = (status.error ?? '').match(/x+/g) ?? [];
    expect(Math.max(0, ...quoted.map((run) => run.length))).toBeLessThanOrEqual(200);
  });
});
