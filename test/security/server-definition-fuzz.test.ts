// Random server definitions, mostly almost valid, through the client and REST: every input is
// either stored or refused with a coded 4xx error (VALIDATION or FORBIDDEN), never a crash or a
// 500, and nothing refused is stored.
import { createAgentqClient, type AgentqClient } from '@agentq/client';
import type { RunningApi } from '@agentq/api';
import { AgentqError, serverPolicyFromEnv } from '@agentq/shared';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { startTestApi, testConfig, type ApiCaller } from '../api/start-test-api.js';

const policyEnv = {
  AGENTQ_SECRET_HOSTS: 'BOUND=api.example.com;WILD=*.example.org',
  AGENTQ_SECRET_NAMES: 'LISTED,OPENAI_API_KEY',
  AGENTQ_STDIO_COMMANDS: 'allowed-command',
};

let ctx: TestContext;
let api: RunningApi;
let http: ApiCaller;
let client: AgentqClient;

beforeAll(async () => {
  ctx = createTestContext();
  ({ api, http } = await startTestApi(ctx, testConfig(ctx, policyEnv)));
  client = createAgentqClient({
    redisUrl: ctx.redisUrl,
    prefix: ctx.prefix,
    serverPolicy: serverPolicyFromEnv(policyEnv),
  });
});

afterAll(async () => {
  await client?.close();
  await api?.close();
  await ctx?.close();
});

const name = fc.constantFrom(
  'AGENTQ_SECRET_BOUND',
  'AGENTQ_SECRET_WILD',
  'AGENTQ_SECRET_FREE',
  'AGENTQ_SECRET_',
  'AGENTQ_SECRET_NAMES',
  'AGENTQ_API_TOKEN',
  'OPENAI_API_KEY',
  'LISTED',
  'HOME',
  'REDIS_URL',
);
const text = fc.oneof(
  fc.string({ maxLength: 40 }),
  name.map((value) => `\${${value}}`),
  fc.tuple(fc.string({ maxLength: 10 }), name).map(([prefix, value]) => `${prefix}\${${value}}`),
  fc.constant('${'),
  fc.constant('${1BAD}'),
);
const host = fc.constantFrom(
  'api.example.com',
  'a.example.org',
  'example.org',
  'evil.example',
  '127.0.0.1',
  '[::1]',
  '${AGENTQ_SECRET_BOUND}',
);
const url = fc.oneof(
  fc
    .tuple(fc.constantFrom('https://', 'http://', 'ftp://', ''), host, text)
    .map(([scheme, where, path]) => `${scheme}${where}/${path}`),
  fc.string({ maxLength: 60 }),
);
const stringMap = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor', 'Authorization')),
  text,
  {
    maxKeys: 4,
  },
);
const transport = fc.oneof(
  fc.record(
    {
      type: fc.constant('stdio'),
      command: fc.oneof(
        fc.constantFrom('allowed-command', 'sh', '/bin/sh', 'allowed-command '),
        fc.string({ maxLength: 20 }),
      ),
      args: fc.array(text, { maxLength: 4 }),
      env: stringMap,
      cwd: text,
    },
    { requiredKeys: ['type', 'command'] },
  ),
  fc.record(
    { type: fc.constantFrom('streamable-http', 'sse'), url, headers: stringMap },
    { requiredKeys: ['type', 'url'] },
  ),
  fc.anything({ maxDepth: 2 }),
);
// Junk anywhere: wrong types, unknown keys, out-of-range numbers.
const junkDefinition = fc.record(
  {
    name: fc.oneof(fc.string({ maxLength: 30 }), fc.integer()),
    transport,
    enabled: fc.anything({ maxDepth: 0 }),
    alwaysAsk: fc.array(fc.string({ maxLength: 10 }), { maxLength: 3 }),
    timeouts: fc.oneof(fc.record({ connectMs: fc.integer({ min: -5, max: 100_000 }) }), fc.anything({ maxDepth: 1 })),
    extra: fc.anything({ maxDepth: 1 }),
  },
  { requiredKeys: ['transport'] },
);
// Well-formed definitions whose commands, hosts and placeholders vary: these exercise the policy.
const wellFormedDefinition = fc.record(
  {
    name: fc.string({ minLength: 1, maxLength: 30 }),
    transport: fc.oneof(
      fc.record({
        type: fc.constant('stdio'),
        command: fc.constantFrom('allowed-command', 'sh', '/bin/sh', 'allowed-command '),
        args: fc.array(text, { maxLength: 3 }),
      }),
      fc.record({
        type: fc.constantFrom('streamable-http', 'sse'),
        url: fc
          .tuple(fc.constantFrom('https://', 'http://'), host, fc.oneof(fc.constant(''), text))
          .map(([scheme, where, path]) => `${scheme}${where}/${path}`),
        headers: fc.dictionary(fc.constantFrom('Authorization', 'X-Key'), fc.oneof(fc.constant('plain'), text), {
          maxKeys: 2,
        }),
      }),
    ),
    enabled: fc.constant(false),
    alwaysAsk: fc.array(fc.constantFrom('a', 'b', '*'), { maxLength: 2 }),
  },
  { requiredKeys: ['transport'] },
);
const definition = fc.oneof({ arbitrary: wellFormedDefinition, weight: 3 }, { arbitrary: junkDefinition, weight: 1 });
const serverId = fc.oneof(
  { arbitrary: fc.constantFrom('fuzz', 'fuzz-2', 'a'), weight: 4 },
  { arbitrary: fc.string({ minLength: 1, maxLength: 8 }), weight: 1 },
);

describe('server definition fuzzing', () => {
  it('the client stores each input or refuses it with VALIDATION or FORBIDDEN', async () => {
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(serverId, definition, async (id, body) => {
        let code = 'stored';
        try {
          const stored = await client.putServer({ ...body, id });
          // Disabled right away: no warmer runs here, but nothing stored should ever be live.
          await client.setServerEnabled(stored.id, false);
        } catch (error) {
          if (!AgentqError.isInstance(error)) throw error;
          code = error.code;
        }
        outcomes.add(code);
        expect(['stored', 'VALIDATION', 'FORBIDDEN']).toContain(code);
        if (code === 'FORBIDDEN') expect((body.transport as { type?: unknown }).type).toBe('stdio');
      }),
      { numRuns: 200 },
    );
    // The generator reaches all three outcomes, or the property says little.
    expect([...outcomes].sort()).toEqual(['FORBIDDEN', 'VALIDATION', 'stored']);
  });

  it('REST answers 200, 400 or 403 with a coded body, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('fuzz', 'fuzz-2', 'Bad%20Id', '..', 'a'.repeat(80)),
        definition,
        async (id, body) => {
          const response = await http.call('PUT', `/v1/servers/${id}`, { body });
          expect([200, 400, 403, 404]).toContain(response.status);
          if (response.status !== 200) {
            expect(response.body.error.code).toMatch(/^(VALIDATION|FORBIDDEN|NOT_FOUND)$/);
          } else {
            await http.call('POST', `/v1/servers/${id}/disable`);
          }
        },
      ),
      { numRuns: 200 },
    );
    // Everything stored passed the policy: no stdio command but the allowed one, no unbound or
    // forbidden secret.
    for (const info of await client.listServers()) {
      const stored = JSON.stringify(info.definition);
      for (const forbidden of [
        'AGENTQ_API_TOKEN',
        'OPENAI_API_KEY',
        'REDIS_URL',
        '${HOME}',
        'AGENTQ_SECRET_FREE',
        'AGENTQ_SECRET_NAMES',
      ]) {
        expect(stored).not.toContain(forbidden);
      }
      if (info.definition.transport.type === 'stdio') expect(info.definition.transport.command).toBe('allowed-command');
    }
  });
});
