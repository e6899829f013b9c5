import { createHash } from 'node:crypto';
import { toCamelSegment } from './to-camel-segment.js';

/** Hex characters of a server segment's disambiguator; grows only where two would still meet. */
const SEGMENT_DIGEST_LENGTH = 6;
const MAX_SEGMENT_DIGEST_LENGTH = 64;

function serverDigest(serverId: string): string {
  return createHash('sha256').update(serverId).digest('hex');
}

/**
 * The server segment of every MCP wire name, for each of `serverIds` (the ids of **all enabled**
 * servers in the store, never just the ones a process has read).
 *
 * A server whose camelCase slug is its own keeps it: `mcp__teamTools__ping`. Servers whose ids give
 * the same slug (`team-tools`, `team_tools`) all get `<slug>_<digest of the id>`, none of them
 * keeping the plain slug: a canonical holder chosen by sorting would hand the plain name to another
 * server whenever a lower id is added, so an old name would silently point at a different server;
 * this way it just stops resolving, and runs that already used it keep it through their checkpoint.
 * Plain slugs carry `_` at most in front, so a disambiguated segment never equals a plain one.
 *
 * A pure function of the set: any order, any duplicates, any process gives the same map. Ids whose
 * slug is empty map to `''` (their tools always take the digest-suffixed form).
 */
export function assignServerSegments(serverIds: Iterable<string>): Map<string, string> {
  const bySlug = new Map<string, string[]>();
  for (const serverId of new Set(serverIds)) {
    const slug = toCamelSegment(serverId);
    const members = bySlug.get(slug);
    if (members) members.push(serverId);
    else bySlug.set(slug, [serverId]);
  }
  const segments = new Map<string, string>();
  for (const [slug, members] of bySlug) {
    if (slug === '' || members.length === 1) {
      for (const serverId of members) segments.set(serverId, slug);
      continue;
    }
    // Lengthen the digest for the whole group until every member is distinct: decided over the
    // group alone, which is itself a function of the set.
    const digests = new Map(members.map((serverId) => [serverId, serverDigest(serverId)]));
    let length = SEGMENT_DIGEST_LENGTH;
    while (
      length < MAX_SEGMENT_DIGEST_LENGTH &&
      new Set(members.map((serverId) => (digests.get(serverId) as string).slice(0, length))).size < members.length
    ) {
      length += 4;
    }
    for (const serverId of members) {
      segments.set(serverId, `${slug}_${(digests.get(serverId) as string).slice(0, length)}`);
    }
  }
  return segments;
}
