import { createHash } from 'node:crypto';

/**
 * The value of `P:mcp.version.<serverId>`: the hex SHA-1 of the catalog entry's stored bytes. It is
 * the same function as Lua's `redis.sha1hex`, so the warmer's write script sets it beside the entry
 * in one atomic step, and a reader that read the entry can compute it from the bytes it holds.
 * SHA-1 serves here as a change detector over our own writes, not as a security boundary.
 */
export function catalogEntryDigest(entry: string | Buffer): string {
  return createHash('sha1').update(entry).digest('hex');
}
