import { randomBytes } from 'node:crypto';
import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOAuthFixture, type OAuthFixture } from '../fixtures/mcp/oauth-fixture.js';
import { createWarmerHarness, waitFor, type WarmerHarness } from '../warmer/warmer-harness.js';
import {
  enqueueRun,
  runsQueue,
  startTestWorker,
  stopWorkerSuite,
  waitForJob,
} from '../worker/helpers/worker-harness.js';

// Issue #24: a server behind OAuth 2.1 with the client credentials grant. The warmer lists its
// tools and a worker calls one, both through the SDK's discovery and token request, the token kept
// encrypted in Redis.
describe('an MCP server behind OAuth client credentials', () => {
  let harness: WarmerHarness;
  let fixture: OAuthFixture;
  let worker: AgentWorker | undefined;
  let queue: Queue | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    harness = await createWarmerHarness();
    fixture = await startOAuthFixture();
    env = {
      AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
      AGENTQ_SECRET_KEY: randomBytes(32).toString('base64'),
      AGENTQ_SECRET_OAUTH_FIXTURE: fixture.clientSecret,
    };
    await harness.startWarmer({ env });
  }, 60_000);

  afterAll(async () => {
    await stopWorkerSuite({ worker, queue });
    await harness?.close();
    await fixture?.stop();
  });

  it('lists and calls a tool with a token from the client credentials grant', async () => {
    await harness.putServer({
      id: 'oauth-cc',
      transport: { type: 'streamable-http', url: fixture.url },
      auth: {
        type: 'oauth',
        grant: 'client_credentials',
        clientId: fixture.clientId,
        clientSecret: '${AGENTQ_SECRET_OAUTH_FIXTURE}',
      },
      timeouts: { connectMs: 20_000, listMs: 20_000, callMs: 20_000 },
    });
    const entry = await waitFor(() => harness.entry('oauth-cc'), { what: 'oauth-cc warmed', timeoutMs: 60_000 });
    expect(entry.state).toBe('connected');
    expect(entry.tools.map((tool) => tool.name)).toEqual(['whoami']);
    expect(fixture.stats().grants.client_credentials).toBeGreaterThan(0);
    // RFC 8707: the token was asked for this MCP server.
    expect(fixture.stats().resources).toContain(fixture.url);

    // Stored encrypted: neither the client secret nor any token text is readable in Redis.
    const stored = await harness.ctx.redis.get(harness.keys.oauthTokens('oauth-cc'));
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(fixture.clientSecret);
    expect(stored).not.toContain('access_token');

    worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    queue = runsQueue(harness.ctx);
    await enqueueRun(queue, {
      runId: 'oauth-cc-1',
      spec: {
        assistant: {
          model: 'scripted:test',
          mcpServers: ['oauth-cc'],
          script: [{ toolCalls: [{ toolName: 'mcp__oauthCc__whoami', input: { note: 'worker' } }] }, { text: 'done' }],
        },
        input: { prompt: 'who am I' },
      },
    });
    const finished = await waitForJob(queue, 'oauth-cc-1');
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(
      result.toolCalls.map((call) => [call.toolName, call.isError]),
      JSON.stringify(result.toolCalls),
    ).toEqual([['mcp__oauthCc__whoami', false]]);
    expect(fixture.stats().calls).toBe(1);
  }, 120_000);

  it('refuses an OAuth server where no AGENTQ_SECRET_KEY is set', async () => {
    const keyless = await createWarmerHarness();
    try {
      await keyless.startWarmer({ env: { AGENTQ_ALLOW_PRIVATE_FETCH: 'true', AGENTQ_SECRET_OAUTH_FIXTURE: 'x' } });
      await keyless.putServer({
        id: 'oauth-keyless',
        transport: { type: 'streamable-http', url: fixture.url },
        auth: {
          type: 'oauth',
          grant: 'client_credentials',
          clientId: 'x',
          clientSecret: '${AGENTQ_SECRET_OAUTH_FIXTURE}',
        },
      });
      const status = await waitFor(
        async () => {
          const current = await keyless.status('oauth-keyless');
          return current?.errorCode !== undefined && current;
        },
        { what: 'the keyless refusal', timeoutMs: 60_000 },
      );
      expect(status.errorCode).toBe('OAUTH_KEY_MISSING');
    } finally {
      await keyless.close();
    }
  }, 90_000);
});
