import type { CatalogRead, CatalogReader } from '@agentq/registry';

/**
 * A reader for one tool-set build that reads each server once: resolving the assistant's tool ids
 * and syncing the registry both need the same servers, and a second Redis round trip for the same
 * keys a moment later buys nothing. The server listing (auto mode) is read once too. `buildRunTools`
 * makes a fresh one per build, so every run sees the current catalog.
 */
export function memoizeCatalogReads(reader: CatalogReader): CatalogReader {
  const reads = new Map<string, CatalogRead>();
  let servers: ReturnType<CatalogReader['listServers']> | undefined;
  const readMany = async (serverIds: readonly string[]): Promise<Map<string, CatalogRead>> => {
    const missing = serverIds.filter((id) => !reads.has(id));
    if (missing.length > 0) {
      for (const [id, read] of await reader.readMany(missing)) reads.set(id, read);
    }
    const out = new Map<string, CatalogRead>();
    for (const id of serverIds) {
      const read = reads.get(id);
      if (read) out.set(id, read);
    }
    return out;
  };
  return {
    readMany,
    listTools: async (serverId) => {
      const read = (await readMany([serverId])).get(serverId);
      return read ?? (await reader.listTools(serverId));
    },
    // A failed listing is not kept: the next caller asks again.
    listServers: () => {
      servers ??= reader.listServers();
      servers.catch(() => {
        servers = undefined;
      });
      return servers;
    },
    getServer: reader.getServer
      ? (serverId) => (reader.getServer as NonNullable<CatalogReader['getServer']>)(serverId)
      : undefined,
  };
}
