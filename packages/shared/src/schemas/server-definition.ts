import { z } from 'zod';

/** Server ids are slugs: they appear in Redis keys, job ids and tool ids. */
export const serverIdSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,62}$/, 'must be a slug: lowercase letters, digits, "-" or "_", at most 63 characters');

const stringMap = z.record(z.string(), z.string());

/** Transport of an MCP server. Values may hold `${ENV_NAME}` placeholders for secrets. */
export const transportSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('stdio'),
    command: z.string().min(1),
    args: z.array(z.string()).default([]),
    env: stringMap.default({}),
    cwd: z.string().min(1).optional(),
  }),
  z.strictObject({
    type: z.literal('streamable-http'),
    url: z.string().regex(/^https?:\/\//, 'must be an http(s) URL'),
    headers: stringMap.default({}),
  }),
  z.strictObject({
    type: z.literal('sse'),
    url: z.string().regex(/^https?:\/\//, 'must be an http(s) URL'),
    headers: stringMap.default({}),
  }),
]);

/** A `${NAME}` placeholder naming an allow-listed secret, and nothing else. */
const secretReference = z
  .string()
  .regex(/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/, 'must be a secret reference such as ${AGENTQ_SECRET_CLIENT_SECRET}');

/**
 * OAuth 2.1 for an HTTP MCP server (the MCP authorization specification). Discovery, registration
 * and the RFC 8707 `resource` parameter follow the server's metadata; this block only says which
 * grant to use and which client to present.
 */
export const serverAuthSchema = z
  .strictObject({
    type: z.literal('oauth'),
    /**
     * `client_credentials` for machine-to-machine servers (needs `clientId` and `clientSecret`);
     * `authorization_code` (with PKCE) for servers a person connects once (`agentq servers authorize`).
     */
    grant: z.enum(['client_credentials', 'authorization_code']),
    /** A pre-registered client id: literal, or a `${NAME}` secret. Unset: dynamic registration. */
    clientId: z.string().min(1).max(500).optional(),
    /** The pre-registered client's secret, always as a `${NAME}` secret reference. */
    clientSecret: secretReference.optional(),
    /** Scopes to ask for when the server's challenge and metadata name none. */
    scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be an OAuth scope token')).optional(),
  })
  .refine((auth) => auth.grant !== 'client_credentials' || (auth.clientId && auth.clientSecret), {
    message: 'client_credentials needs clientId and clientSecret',
    path: ['clientSecret'],
  })
  .refine((auth) => !auth.clientSecret || auth.clientId, {
    message: 'clientSecret needs clientId',
    path: ['clientId'],
  });

/** Per-server timeouts, in milliseconds. */
export const serverTimeoutsSchema = z.strictObject({
  /** @default 10000 */
  connectMs: z.number().int().positive().default(10_000),
  /** @default 15000 */
  listMs: z.number().int().positive().default(15_000),
  /** @default 60000 */
  callMs: z.number().int().positive().default(60_000),
});

/** An MCP server definition as stored in `P:servers`. */
export const serverDefinitionSchema = z.strictObject({
  id: serverIdSchema,
  /** Display name, shown to people and used as the search label. Defaults to the id. */
  name: z.string().min(1).max(200).optional(),
  transport: transportSchema,
  /** @default true */
  enabled: z.boolean().default(true),
  /** Tool names that always need a person's approval; `'*'` means every tool of the server. */
  alwaysAsk: z.array(z.string().min(1)).default([]),
  /** Tool names never offered to any run. */
  disabledTools: z.array(z.string().min(1)).default([]),
  timeouts: serverTimeoutsSchema.default({ connectMs: 10_000, listMs: 15_000, callMs: 60_000 }),
  /** Poll interval for servers that do not send `tools/list_changed`. Off when unset. */
  refreshIntervalMs: z.number().int().min(10_000, 'must be at least 10000').optional(),
  /** How agentq authorizes itself to an HTTP server beyond static headers. */
  /** How agentq authorizes itself to an HTTP server beyond static headers (HTTP transports only). */
  auth: serverAuthSchema.optional(),
  /**
   * How a server's `elicitation/create` is answered: `decline`, `accept-defaults` (every field's
   * default; declined when a required field has none), or `ask` (during a run's tool call, the run
   * parks until a person answers the form through the API, the inbox or the CLI; see
   * docs/mcp-servers.md). Outside a run's tool call (a warmer listing tools), `ask` declines.
   * @default 'decline'
   */
  elicitation: z.enum(['decline', 'accept-defaults', 'ask']).optional(),
});

/** A validated MCP server definition, with defaults filled in. */
export type ServerDefinition = z.output<typeof serverDefinitionSchema>;
/** A server definition as written by a person, before defaults. */
export type ServerDefinitionInput = z.input<typeof serverDefinitionSchema>;
/** The `auth` block of a server definition. */
export type ServerAuth = z.output<typeof serverAuthSchema>;
/** The transport part of a server definition. */
export type ServerTransport = z.output<typeof transportSchema>;

/** Display name of a server: its `name`, or its id. */
export function serverDisplayName(definition: Pick<ServerDefinition, 'id' | 'name'>): string {
  return definition.name ?? definition.id;
}

/** Whether `toolName` of `definition` always needs approval. */
export function isAlwaysAsk(definition: Pick<ServerDefinition, 'alwaysAsk'>, toolName: string): boolean {
  return definition.alwaysAsk.includes('*') || definition.alwaysAsk.includes(toolName);
}
