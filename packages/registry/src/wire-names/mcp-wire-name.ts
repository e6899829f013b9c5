import { createHash } from 'node:crypto';
import { toolId } from '@agentq/shared';
import { isValidToolName, MAX_TOOL_NAME_LENGTH } from './tool-names.js';
import { toCamelSegment } from './to-camel-segment.js';

const PREFIX = 'mcp__';
const SEPARATOR = '__';
/** Hex characters of the digest suffix; grows only when two digests would still collide. */
const DIGEST_LENGTH = 10;
/** Longest digest that still leaves one character per segment within the length limit. */
const MAX_DIGEST_LENGTH = MAX_TOOL_NAME_LENGTH - PREFIX.length - SEPARATOR.length - 3;
/** Characters of the server segment kept in a digest-suffixed name; the tool gets the rest. */
const SERVER_SEGMENT_BUDGET = 20;

/** A server id and one of its tool names. */
export interface McpToolPair {
  serverId: string;
  toolName: string;
  /**
   * The server segment, from {@link assignServerSegments} over every enabled server, so that
   * servers whose ids share a camelCase slug never share a name.
   * @default toCamelSegment(serverId)
   */
  segment?: string;
}

function segmentOf(pair: McpToolPair): string {
  return pair.segment ?? toCamelSegment(pair.serverId);
}

/** `mcp__<segment>__<camel(tool)>`, which may be invalid, too long or shared. */
function plainName(pair: McpToolPair): string {
  return `${PREFIX}${segmentOf(pair)}${SEPARATOR}${toCamelSegment(pair.toolName)}`;
}

function pairDigest(pair: McpToolPair): string {
  // Over the server id, never the display name, so renaming a server keeps every tool's name.
  return createHash('sha256').update(`${pair.serverId}\0${pair.toolName}`).digest('hex');
}

/**
 * The digest-suffixed form: `mcp__<server>__<tool>_<digest>`, segments truncated to fit. A plain
 * name never has `_` inside its tool segment, so the two forms can never equal each other.
 */
function digestName(pair: McpToolPair, digestLength: number): string {
  const suffix = `_${pairDigest(pair).slice(0, digestLength)}`;
  const budget = MAX_TOOL_NAME_LENGTH - PREFIX.length - SEPARATOR.length - suffix.length;
  // A cut disambiguated segment may end in `_`; dropping it keeps the `__` separator unambiguous.
  const server =
    (segmentOf(pair) || 'x').slice(0, Math.min(SERVER_SEGMENT_BUDGET, budget - 1)).replace(/_+$/, '') || 'x';
  const tool = (toCamelSegment(pair.toolName) || 'x').slice(0, budget - server.length);
  return `${PREFIX}${server}${SEPARATOR}${tool}${suffix}`;
}

function plainIsUsable(pair: McpToolPair, plain: string): boolean {
  return isValidToolName(plain) && segmentOf(pair) !== '' && toCamelSegment(pair.toolName) !== '';
}

/**
 * The wire name of one MCP tool on its own: the plain form when it is valid and fits in 63
 * characters, otherwise the digest-suffixed form. Use {@link assignMcpWireNames} when several tools
 * are in play, because distinct tools can share a plain form.
 */
export function mcpWireName(serverId: string, toolName: string, segment?: string): string {
  const pair = { serverId, toolName, segment };
  const plain = plainName(pair);
  return plainIsUsable(pair, plain) ? plain : digestName(pair, DIGEST_LENGTH);
}

/**
 * Wire names for a set of MCP tools, keyed by tool id (`serverId:toolName`). Deterministic for a
 * given set whatever its order, and injective: every tool whose plain name is shared with another
 * tool in the set gets the digest-suffixed form (none of them wins by arrival order), and digests
 * are lengthened where two would still meet.
 *
 * The registry calls it with the tools of one server at a time, each with its segment from
 * {@link assignServerSegments}: segments of enabled servers are distinct, so plain names of two
 * servers never meet, and a tool's name depends only on its own server's list, never on which
 * other servers a process happened to read.
 */
export function assignMcpWireNames(pairs: ReadonlyArray<McpToolPair>): Map<string, string> {
  const unique = new Map<string, McpToolPair>();
  for (const pair of pairs) unique.set(toolId(pair.serverId, pair.toolName), pair);

  const byPlain = new Map<string, string[]>();
  for (const [id, pair] of unique) {
    const plain = plainName(pair);
    if (!plainIsUsable(pair, plain)) continue;
    const holders = byPlain.get(plain);
    if (holders) holders.push(id);
    else byPlain.set(plain, [id]);
  }

  const names = new Map<string, string>();
  const needDigest: string[] = [];
  for (const [id, pair] of unique) {
    const plain = plainName(pair);
    const holders = byPlain.get(plain);
    if (holders && holders.length === 1) names.set(id, plain);
    else needDigest.push(id);
  }

  let pending = needDigest;
  for (let length = DIGEST_LENGTH; pending.length > 0; length = Math.min(MAX_DIGEST_LENGTH, length + 8)) {
    const byName = new Map<string, string[]>();
    for (const id of pending) {
      const name = digestName(unique.get(id) as McpToolPair, length);
      const holders = byName.get(name);
      if (holders) holders.push(id);
      else byName.set(name, [id]);
    }
    const next: string[] = [];
    for (const [name, holders] of byName) {
      if (holders.length === 1 || length >= MAX_DIGEST_LENGTH) {
        // At the longest digest a clash would need a SHA-256 prefix collision of 212 bits.
        for (const id of holders) names.set(id, name);
      } else {
        next.push(...holders);
      }
    }
    pending = next;
  }
  return names;
}

/**
 * Splits an MCP wire name into its camelCase segments (the digest suffix stays on the tool part).
 * `null` when the name does not start with `mcp__` or has no second `__` separator.
 */
export function parseMcpWireName(name: string): { server: string; tool: string } | null {
  if (!name.startsWith(PREFIX)) return null;
  const rest = name.slice(PREFIX.length);
  // A segment may start with one `_` (digit-leading names), so search from its second character.
  const at = rest.indexOf(SEPARATOR, 1);
  if (at <= 0) return null;
  const server = rest.slice(0, at);
  const tool = rest.slice(at + SEPARATOR.length);
  if (tool === '') return null;
  return { server, tool };
}
