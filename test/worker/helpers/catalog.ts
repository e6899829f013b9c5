import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  catalogEntrySchema,
  catalogToolSchema,
  definitionHash,
  digestOf,
  type CatalogTool,
  type ServerDefinition,
  type ServerDefinitionInput,
} from '@agentq/shared';
import { catalogEntryDigest, keyNames, ServerStore, type RedisConnection } from '@agentq/store';

/** Absolute command of server-everything's stdio binary. */
export const everythingCommand = new URL('../../../node_modules/.bin/mcp-server-everything', import.meta.url).pathname;

/** Stores a server definition and returns it with defaults filled in. */
export async function putServer(options: {
  redis: RedisConnection;
  prefix: string;
  definition: ServerDefinitionInput;
}): Promise<ServerDefinition> {
  return await new ServerStore({ redis: options.redis, prefix: options.prefix }).put(options.definition);
}

/** Writes a catalog entry for `definition` as a warmer would (shared schema, hash, version, version key). */
export async function writeCatalogEntry(options: {
  redis: RedisConnection;
  prefix: string;
  definition: ServerDefinition;
  tools: CatalogTool[];
}): Promise<void> {
  const tools = options.tools.map((tool) => catalogToolSchema.parse(tool));
  const entry = catalogEntrySchema.parse({
    tools,
    definitionHash: definitionHash(options.definition),
    refreshedAt: Date.now(),
    state: 'connected',
    version: digestOf(tools),
  });
  const keys = keyNames(options.prefix);
  const text = JSON.stringify(entry);
  // Entry and version key share the server's hash slot, so one MSET sets both, as the warmer does.
  await options.redis.mset(
    keys.tools(options.definition.id),
    text,
    keys.catalogVersion(options.definition.id),
    catalogEntryDigest(text),
  );
}

/**
 * A server whose tools are cached but which is never started (its command does not exist): runs
 * see its tools, and a test's own caller stands in for the server. Returns its definition.
 */
export async function putCachedServer(options: {
  redis: RedisConnection;
  prefix: string;
  id: string;
  tools: CatalogTool[];
}): Promise<ServerDefinition> {
  const { redis, prefix } = options;
  const transport = { type: 'stdio' as const, command: '/nonexistent/never-started' };
  const definition = await putServer({ redis, prefix, definition: { id: options.id, transport } });
  await writeCatalogEntry({ redis, prefix, definition, tools: options.tools });
  return definition;
}

/** Lists a stdio server's tools for real over MCP, in the cached shape. */
export async function listToolsLive(definition: ServerDefinition, timeoutMs = 20_000): Promise<CatalogTool[]> {
  if (definition.transport.type !== 'stdio') throw new Error('stdio only');
  const transport = new StdioClientTransport({
    command: definition.transport.command,
    args: definition.transport.args,
    env: { ...getDefaultEnvironment(), ...definition.transport.env },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'agentq-test-warm', version: '0.0.0' });
  await client.connect(transport, { timeout: timeoutMs });
  try {
    const tools: CatalogTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      for (const tool of page.tools) {
        const parsed = catalogToolSchema.safeParse({
          name: tool.name,
          title: tool.title,
          description: tool.description,
          inputSchema: tool.inputSchema,
          annotations: tool.annotations,
        });
        if (parsed.success) tools.push(parsed.data);
      }
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  } finally {
    await client.close();
  }
}

/** Stores a definition and warms its catalog entry by really listing its tools. */
export async function warmServer(options: {
  redis: RedisConnection;
  prefix: string;
  definition: ServerDefinitionInput;
}): Promise<{ definition: ServerDefinition; tools: CatalogTool[] }> {
  const definition = await putServer(options);
  const tools = await listToolsLive(definition);
  await writeCatalogEntry({ redis: options.redis, prefix: options.prefix, definition, tools });
  return { definition, tools };
}
