// The client command of `npm run test:conformance`: the suite starts a test server per scenario
// and runs this with the server's URL as the last argument, the scenario in
// MCP_CONFORMANCE_SCENARIO and its data (client credentials) in MCP_CONFORMANCE_CONTEXT.
//
// It is agentq as deployed, in one process on a private prefix of a real Redis (REDIS_URL,
// default redis://127.0.0.1:6379; every key of the prefix is deleted at the end): the operator
// registers the server through the client API (with the `auth` block the scenario needs and
// `elicitation: accept-defaults`), the catalog warmer role lists it, an authorization-code server
// is first authorized by the operator's flow (`startAuthorization`, the callback's
// `takeAuthorizationFlow`, then a refresh, as `agentq servers authorize` does), and the agent
// worker role runs one run whose scripted model calls every listed tool. It exits 0 only when the
// run completed with one successful call per tool; the scenario's own checks decide the verdict.
import { randomBytes, randomUUID } from 'node:crypto';
import { startAgentWorker } from '@agentq/agent-worker';
import { startCatalogWarmer } from '@agentq/catalog-warmer';
import { createAgentqClient, type AgentqClient, type CatalogView } from '@agentq/client';
import { startAuthorization, takeAuthorizationFlow } from '@agentq/mcp-connect';
import { assignMcpWireNames } from '@agentq/registry';
import {
  createLogger,
  loadConfig,
  resolveSecrets,
  serverPolicyOf,
  toolId,
  type Config,
  type ServerDefinition,
  type ServerDefinitionInput,
} from '@agentq/shared';
import { keyNames, OAuthTokenStore } from '@agentq/store';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { deleteKeysWithPrefix } from '../helpers/redis.js';

const url = process.argv.at(-1) ?? '';
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const context = z
  .looseObject({ client_id: z.string().optional(), client_secret: z.string().optional() })
  .parse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}'));

const serverId = 'conformance';
const clientSecretName = 'AGENTQ_SECRET_CONFORMANCE_CLIENT';
/** Each wait stays well inside the suite's 60 s per scenario. */
const waitMs = 20_000;

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

/** The server's catalog once a warmer has finished a refresh that left it in a state other than `skip`. */
async function settledCatalog(client: AgentqClient, skip: ReadonlySet<string>): Promise<CatalogView> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const view = await client.getCatalog(serverId);
    if (!skip.has(view.state)) return view;
    if (Date.now() > deadline) throw new Error(`the warmer left ${serverId} ${view.state} for ${waitMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether the token store holds scopes a server asked for beyond the granted ones. */
async function stepUpPending(client: AgentqClient, config: Config): Promise<boolean> {
  const store = new OAuthTokenStore({
    redis: client.redis,
    keys: keyNames(client.prefix),
    secretKey: config.secretKey ?? '',
  });
  return (await store.read(serverId))?.pendingScope !== undefined;
}

/**
 * What `agentq servers authorize` does, with the test server's automatic consent standing in for
 * the operator's browser: start the flow, follow the consent redirect, take the flow its `state`
 * names, exchange the code (tokens stored encrypted under the roles' prefix and key), refresh.
 */
async function authorize(
  client: AgentqClient,
  config: Config,
  definition: ServerDefinition,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  const store = new OAuthTokenStore({
    redis: client.redis,
    keys: keyNames(client.prefix),
    secretKey: config.secretKey ?? '',
  });
  const policy = {
    ...resolveSecrets(definition, env),
    store,
    allowPrivateNetwork: true,
    clientMetadataUrl: config.oauthClientMetadataUrl,
  };
  const started = await startAuthorization({ ...policy, redirectUrl: 'http://127.0.0.1:9/callback' });
  const consent = await fetch(started.authorizationUrl, { redirect: 'manual' });
  const callback = new URL(consent.headers.get('location') ?? '', started.authorizationUrl);
  const flow = await takeAuthorizationFlow(store, callback.searchParams.get('state') ?? '');
  await flow.complete({ ...policy, code: callback.searchParams.get('code') ?? '' });
  await client.refreshServer(serverId);
}

/** One scripted run that calls every tool of the catalog once, one step each, then answers. */
function runSpecFor(view: CatalogView): unknown {
  const wireNames = assignMcpWireNames(view.tools.map((tool) => ({ serverId, toolName: tool.name })));
  const script = [
    ...view.tools.map((tool) => ({
      toolCalls: [{ toolName: wireNames.get(toolId(serverId, tool.name)), input: argumentsFor(tool.inputSchema) }],
    })),
    { text: 'done' },
  ];
  return {
    assistant: { model: 'scripted:conformance', mcpServers: [serverId], maxSteps: script.length + 1, script },
    input: { prompt: `call every tool of the ${scenario || 'conformance'} server` },
  };
}

async function main(): Promise<number> {
  const prefix = `conformance-${randomUUID()}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    AGENTQ_PREFIX: prefix,
    AGENTQ_SECRET_KEY: randomBytes(32).toString('base64'),
    // The suite's servers listen on loopback.
    AGENTQ_ALLOW_PRIVATE_FETCH: 'true',
    [clientSecretName]: context.client_secret,
    // An operator binds a client secret to the host it is for; the API refuses unbound ones.
    AGENTQ_SECRET_HOSTS: `${clientSecretName}=${URL.canParse(url) ? new URL(url).hostname : 'localhost'}`,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // The URL the scenario's authorization server expects as the client id (it does not fetch it).
    ...(scenario === 'auth/basic-cimd'
      ? { AGENTQ_OAUTH_CLIENT_METADATA_URL: 'https://conformance-test.local/client-metadata.json' }
      : {}),
  };
  const config = loadConfig(env);
  const logger = createLogger({ level: config.logLevel, name: 'conformance-client' });
  const client = createAgentqClient({
    redisUrl: config.redisUrl,
    prefix: config.prefix,
    logger,
    serverPolicy: serverPolicyOf(config),
  });
  const roles: Array<{ close: () => Promise<void> }> = [];
  try {
    const definition = await client.putServer({
      id: serverId,
      transport: { type: 'streamable-http', url },
      elicitation: 'accept-defaults',
      auth: authFor(),
      timeouts: { connectMs: waitMs, listMs: waitMs, callMs: waitMs },
    });
    roles.push(await startCatalogWarmer({ config, logger, env }));
    roles.push(await startAgentWorker({ config, logger, env }));
    let view = await settledCatalog(client, new Set(['never-warmed']));
    if (view.state === 'auth-required' && definition.auth?.grant === 'authorization_code') {
      await authorize(client, config, definition, env);
      view = await settledCatalog(client, new Set(['never-warmed', 'auth-required']));
    }
    if (view.state !== 'connected') {
      throw new Error(`the warmer left ${serverId} ${view.state}: ${JSON.stringify(view.status)}`);
    }
    let { runId } = await client.enqueueRun(runSpecFor(view));
    let result = await client.waitForRun(runId, { timeoutMs: 2 * waitMs });
    // A step-up: a call was refused for lacking scope, and the worker recorded the scopes it needs.
    // The operator authorizes again (the flow asks for them), and the run is made again.
    if (result.toolCalls.some((call) => call.isError) && (await stepUpPending(client, config))) {
      await authorize(client, config, definition, env);
      view = await settledCatalog(client, new Set(['never-warmed', 'auth-required']));
      ({ runId } = await client.enqueueRun(runSpecFor(view)));
      result = await client.waitForRun(runId, { timeoutMs: 2 * waitMs });
    }
    const failed = result.toolCalls.filter((call) => call.isError);
    if (result.toolCalls.length !== view.tools.length || failed.length > 0) {
      throw new Error(
        `run ${runId} made ${result.toolCalls.length} of ${view.tools.length} calls, failing: ${JSON.stringify(failed)}`,
      );
    }
    return 0;
  } finally {
    await Promise.all(roles.map((role) => role.close()));
    await client.close();
    const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: null });
    try {
      await deleteKeysWithPrefix(redis, prefix);
    } finally {
      redis.disconnect();
    }
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`agentq conformance client: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
