import type { CatalogView } from '@agentq/client';
import { AgentqError, errorCodeInfo, type ErrorCode, type ServerDefinitionInput } from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatAge, formatTable } from '../output/format-table.js';
import { suggestedAgentq } from '../output/shell-env-prefix.js';
import { withClient } from '../with-client.js';

/** Options of `agentq servers add`. */
export interface AddServerOptions {
  command?: string;
  arg?: string[];
  env?: string[];
  url?: string;
  sse?: boolean;
  header?: string[];
  name?: string;
  alwaysAsk?: string[];
  disabled?: boolean;
  /** Return once the server is listed or has failed, printing its state. */
  wait?: boolean;
  /** With `wait`: give up after this many milliseconds. @default 120000 */
  timeout?: number;
  /** Print `{ definition }` (with `wait`, also the settled `state` and `status`) as JSON. */
  json?: boolean;
}

/** `agentq servers list`. */
export async function listServersCommand(io: CliIo, options: { json?: boolean }): Promise<number> {
  return await withClient(io, async (client, config) => {
    const servers = await client.listServers();
    if (options.json) {
      io.out(JSON.stringify(servers, null, 2));
      return EXIT_CODES.ok;
    }
    if (servers.length === 0) {
      const agentq = suggestedAgentq(config, io.env);
      io.out(`No MCP servers. Add one with \`${agentq} servers add\` or \`${agentq} servers import <file>\`.`);
      return EXIT_CODES.ok;
    }
    io.out(
      formatTable(
        ['ID', 'ENABLED', 'STATE', 'TOOLS', 'LAST SUCCESS', 'TRANSPORT', 'ERROR'],
        servers.map(({ definition, state, status }) => [
          definition.id,
          definition.enabled ? 'yes' : 'no',
          state,
          status ? String(status.toolCount) : '—',
          status?.lastSuccessAt ? `${formatAge(Date.now() - status.lastSuccessAt)} ago` : '—',
          definition.transport.type === 'stdio'
            ? `stdio ${definition.transport.command}`
            : `${definition.transport.type} ${definition.transport.url}`,
          status?.error ?? '',
        ]),
      ),
    );
    return EXIT_CODES.ok;
  });
}

/** Builds a definition from `servers add` options. */
export function definitionFromOptions(serverId: string, options: AddServerOptions): ServerDefinitionInput {
  if ((options.command === undefined) === (options.url === undefined)) {
    throw new AgentqError({
      code: 'USAGE',
      field: 'transport',
      message: 'Give exactly one of --command (stdio) or --url (HTTP)',
    });
  }
  const pairs = (items: string[] | undefined, what: string) =>
    Object.fromEntries(
      (items ?? []).map((item) => {
        const at = item.indexOf('=');
        if (at <= 0)
          throw new AgentqError({ code: 'USAGE', field: what, message: `${what} must look like NAME=value` });
        return [item.slice(0, at), item.slice(at + 1)];
      }),
    );
  return {
    id: serverId,
    ...(options.name ? { name: options.name } : {}),
    transport:
      options.command !== undefined
        ? { type: 'stdio', command: options.command, args: options.arg ?? [], env: pairs(options.env, 'env') }
        : {
            type: options.sse ? 'sse' : 'streamable-http',
            url: options.url as string,
            headers: pairs(options.header, 'header'),
          },
    alwaysAsk: options.alwaysAsk ?? [],
    enabled: !options.disabled,
  };
}

/**
 * `agentq servers add <id> ...`. Whoever runs the CLI holds the deployment's Redis credentials, so
 * it writes as the operator: stdio commands and unbound secrets are allowed, as for an import.
 */
export async function addServerCommand(io: CliIo, serverId: string, options: AddServerOptions): Promise<number> {
  const definition = definitionFromOptions(serverId, options);
  return await withClient(io, async (client) => {
    const stored = await client.putServer(definition, { origin: 'operator' });
    if (!options.json)
      io.out(
        `Saved MCP server ${stored.id}${stored.enabled ? '; warmers will list its tools shortly' : ' (disabled)'}.`,
      );
    if (!options.wait) {
      if (options.json) io.out(JSON.stringify({ definition: stored }, null, 2));
      return EXIT_CODES.ok;
    }
    const timeoutMs = options.timeout ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const view = await client.getCatalog(stored.id);
      if (view.state !== 'never-warmed') {
        if (options.json)
          io.out(JSON.stringify({ definition: stored, state: view.state, status: view.status }, null, 2));
        return reportSettledState(io, view, { quiet: options.json === true });
      }
      if (Date.now() >= deadline) {
        throw new AgentqError({
          code: 'TIMEOUT',
          message: `MCP server ${stored.id} was not listed within ${timeoutMs} ms (state: never-warmed)`,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(250, Math.max(1, deadline - Date.now()))));
    }
  });
}

/**
 * Prints the state a waited-for server settled in (unless `quiet`: the caller printed it as JSON):
 * exit 0 when `connected`, otherwise the status's error, thrown with its code (exit code as
 * `ERROR_CODES` gives it), else `MCP_SERVER_UNAVAILABLE` for a server disabled meanwhile and
 * `MCP_REFRESH_FAILED` for any other.
 */
function reportSettledState(io: CliIo, view: CatalogView, { quiet }: { quiet: boolean }): number {
  const { state, status } = view;
  if (state === 'connected') {
    if (!quiet) io.out(`State: ${state} (${view.tools.length} tools).`);
    return EXIT_CODES.ok;
  }
  if (!quiet) io.out(`State: ${state}${status?.errorCode ? ` (${status.errorCode})` : ''}.`);
  const code: ErrorCode =
    status?.errorCode && errorCodeInfo(status.errorCode)
      ? (status.errorCode as ErrorCode)
      : state === 'disabled'
        ? 'MCP_SERVER_UNAVAILABLE'
        : 'MCP_REFRESH_FAILED';
  throw new AgentqError({ code, message: status?.error ?? `MCP server ${view.serverId} is ${state}` });
}

/** `agentq servers import <file>`. */
export async function importServersCommand(io: CliIo, path: string): Promise<number> {
  return await withClient(io, async (client) => {
    const imported = await client.importServers(path);
    io.out(
      `Imported ${imported.length} MCP server(s)${imported.length > 0 ? `: ${imported.map((server) => server.id).join(', ')}` : ''}.`,
    );
    return EXIT_CODES.ok;
  });
}

/** `agentq servers enable|disable|refresh|restart|remove <id>`. */
export async function serverActionCommand(
  io: CliIo,
  action: 'enable' | 'disable' | 'refresh' | 'restart' | 'remove',
  serverId: string,
): Promise<number> {
  return await withClient(io, async (client) => {
    if (action === 'enable' || action === 'disable') {
      await client.setServerEnabled(serverId, action === 'enable');
      io.out(`MCP server ${serverId} ${action}d.`);
    } else if (action === 'refresh') {
      await client.refreshServer(serverId);
      io.out(`Asked the warmers to refresh ${serverId}.`);
    } else if (action === 'restart') {
      await client.restartServer(serverId);
      // What `restartServer` does: it bumps the server's session generation, which the warmer's
      // watcher and every worker's client pool compare before they use their session again.
      io.out(
        `Restarted ${serverId}: a warmer re-reads its tools over a new session (its watcher reconnects), and every ` +
          'worker opens a new session on its next call to it (calls already running finish on the old one).',
      );
    } else {
      await client.removeServer(serverId);
      io.out(`Removed MCP server ${serverId}.`);
    }
    return EXIT_CODES.ok;
  });
}
