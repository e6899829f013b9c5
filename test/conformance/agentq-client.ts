// The client command of `npm run test:conformance`: the suite starts a test server per scenario
// and runs this with the server's URL as the last argument, the scenario in
// MCP_CONFORMANCE_SCENARIO and its data (client credentials) in MCP_CONFORMANCE_CONTEXT.
//
// It reaches the server the way the warmer and the worker do, through @agentq/mcp-connect: the
// definition is validated and its secrets resolved, OAuth tokens live encrypted in a real Redis
// (REDIS_URL, default redis://127.0.0.1:6379, under a prefix of its own, deleted at the end), an
// authorization-code server is first connected by the operator's flow (`startAuthorization`,
// then the callback's `takeAuthorizationFlow`), then it lists the tools and calls each one.
import { randomBytes, randomUUID } from 'node:crypto';
import {
  callServerTool,
  connectMcpServer,
  listServerTools,
  McpConnectError,
  startAuthorization,
  takeAuthorizationFlow,
} from '@agentq/mcp-connect';
import { OAuthTokenStore } from '@agentq/store';
import { createLogger, resolveSecrets, serverDefinitionSchema, type ServerDefinitionInput } from '@agentq/shared';
import { createRedisConnection, keyNames, waitForRedis } from '@agentq/store';
import { z } from 'zod';

const url = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = z
  .looseObject({ client_id: z.string().optional(), client_secret: z.string().optional() })
  .parse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}'));

const clientSecretName = 'AGENTQ_SECRET_CONFORMANCE_CLIENT';
const env: Record<string, string | undefined> = { ...process.env, [clientSecretName]: context.client_secret };

/** The `auth` block an operator would write for the scenario's server. */
function authFor(): ServerDefinitionInput['auth'] {
  if (!scenario.startsWith('auth/')) return undefined;
  const preRegistered =
    context.client_id !== undefined
      ? {
          clientId: context.client_id,
          ...(context.client_secret !== undefined ? { clientSecret: `\${${clientSecretName}}` } : {}),
        }
      : {};
  if (scenario.startsWith('auth/client-credentials')) {
    return { type: 'oauth', grant: 'client_credentials', ...preRegistered };
  }
  return { type: 'oauth', grant: 'authorization_code', ...preRegistered };
}

/** Arguments that fit a tool's input schema: the first enum value, or a plain value per type. */
function argumentsFor(schema: unknown): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, { type?: string; enum?: unknown[] }> }).properties ?? {};
  const sample = (field: { type?: string; enum?: unknown[] }): unknown => {
    if (field.enum?.length) return field.enum[0];
    if (field.type === 'number' || field.type === 'integer') return 1;
    if (field.type === 'boolean') return true;
    if (field.type === 'array') return [];
    if (field.type === 'object') return {};
    return 'agentq';
  };
  return Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, sample(field)]));
}

async function main(): Promise<number> {
  const logger = createLogger({ level: process.env.LOG_LEVEL ?? 'warn', name: 'conformance-client' });
  const redis = createRedisConnection({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', role: 'producer' });
  await waitForRedis(redis, 5_000);
  const prefix = `conformance-${randomUUID()}`;
  const store = new OAuthTokenStore({ redis, keys: keyNames(prefix), secretKey: randomBytes(32).toString('base64') });
  const definition = serverDefinitionSchema.parse({
    id: 'conformance',
    transport: { type: 'streamable-http', url },
    elicitation: 'accept-defaults',
    auth: authFor(),
    timeouts: { connectMs: 20_000, listMs: 20_000, callMs: 20_000 },
  });
  const resolved = resolveSecrets(definition, env);
  const policy = { allowPrivateNetwork: true, oauth: { store } };
  const connect = () =>
    connectMcpServer({
      ...resolved,
      ...policy,
      logger,
      oauthSecrets: resolved.oauthSecrets,
      clientName: 'agentq-conformance',
    });
  try {
    let connection;
    try {
      connection = await connect();
    } catch (error) {
      if (!(McpConnectError.isInstance(error) && error.code === 'MCP_AUTH_REQUIRED' && definition.auth)) throw error;
      // What `agentq servers authorize` does, with the test server's automatic consent standing in
      // for the operator's browser.
      const redirectUrl = 'http://127.0.0.1:9/callback';
      const started = await startAuthorization({ ...resolved, store, allowPrivateNetwork: true, redirectUrl });
      const consent = await fetch(started.authorizationUrl, { redirect: 'manual' });
      const callback = new URL(consent.headers.get('location') ?? '', started.authorizationUrl);
      const flow = await takeAuthorizationFlow(store, callback.searchParams.get('state') ?? '');
      await flow.complete({
        ...resolved,
        store,
        allowPrivateNetwork: true,
        code: callback.searchParams.get('code') ?? '',
      });
      connection = await connect();
    }
    try {
      const tools = await listServerTools({ client: connection.client, serverId: definition.id, timeoutMs: 20_000 });
      for (const tool of tools as Array<{ name: string; inputSchema?: unknown }>) {
        await callServerTool({
          client: connection.client,
          serverId: definition.id,
          toolName: tool.name,
          input: argumentsFor(tool.inputSchema ?? {}),
          timeoutMs: 20_000,
        });
      }
    } finally {
      await connection.close();
    }
    return 0;
  } finally {
    await store.delete(definition.id);
    redis.disconnect();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`agentq conformance client: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
