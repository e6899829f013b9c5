import type { CatalogRead } from './catalog-reader.js';

/**
 * A note per namespace (`mcp:<serverId>`) for the servers whose latest refresh failed while their
 * last good list is still being served (status `stale` or `error`), for search results to carry:
 * the model should know that such a tool may have changed or gone. Servers read fresh get none.
 */
export function catalogFreshness(reads: ReadonlyMap<string, CatalogRead>): Map<string, string> {
  const notes = new Map<string, string>();
  for (const [serverId, read] of reads) {
    if (read.state !== 'ready' || !read.status) continue;
    if (read.status.state !== 'stale' && read.status.state !== 'error') continue;
    const since = read.status.lastSuccessAt ?? read.status.lastAttemptAt;
    notes.set(`mcp:${serverId}`, `server unreachable since ${new Date(since).toISOString()}; tools may be out of date`);
  }
  return notes;
}
