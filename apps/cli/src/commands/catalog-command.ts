import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatAge, formatTable } from '../output/format-table.js';
import { withClient } from '../with-client.js';

/**
 * `agentq catalog <serverId>`: the cached tools of a server, as runs see them; with `--version`,
 * the tool definitions of that catalog version, as the runs pinned to it were shown them.
 */
export async function catalogCommand(
  io: CliIo,
  serverId: string,
  options: { json?: boolean; version?: string },
): Promise<number> {
  return await withClient(io, async (client) => {
    if (options.version !== undefined) {
      const snapshot = await client.getCatalogSnapshot(serverId, options.version);
      if (options.json) {
        io.out(JSON.stringify(snapshot, null, 2));
        return EXIT_CODES.ok;
      }
      io.out(
        `${serverId} version ${snapshot.version}: ${snapshot.tools.length} tools, read ${new Date(snapshot.refreshedAt).toISOString()}`,
      );
      for (const tool of snapshot.tools) {
        io.out('');
        io.out(`${tool.name}: ${firstLine(tool.description ?? tool.title ?? '')}`);
        io.out(`  input: ${JSON.stringify(tool.inputSchema)}`);
      }
      return EXIT_CODES.ok;
    }
    const catalog = await client.getCatalog(serverId);
    if (options.json) {
      io.out(JSON.stringify(catalog, null, 2));
      return EXIT_CODES.ok;
    }
    const age = catalog.ageMs === undefined ? '' : `, refreshed ${formatAge(catalog.ageMs)} ago`;
    io.out(`${serverId}: ${catalog.state}, ${catalog.tools.length} tools${age}`);
    if (catalog.status?.error) io.out(`last error: ${catalog.status.error}`);
    // The server's MCP cache hint: the list is what agentq's own identity sees, not anyone's.
    if (catalog.cacheScope === 'private') io.out('cache scope: private (valid for agentq on this server only)');
    if (catalog.tools.length > 0) {
      const alwaysAsk = new Set(catalog.definition?.alwaysAsk ?? []);
      io.out('');
      io.out(
        formatTable(
          ['TOOL', 'APPROVAL', 'DESCRIPTION'],
          catalog.tools.map((tool) => [
            tool.name,
            alwaysAsk.has(tool.name) || alwaysAsk.has('*') ? 'always ask' : '',
            firstLine(tool.description ?? tool.title ?? ''),
          ]),
        ),
      );
    }
    return EXIT_CODES.ok;
  });
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 90 ? `${line.slice(0, 89)}…` : line;
}
