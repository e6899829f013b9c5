import { minuteOf, type ServerFreshness } from '../catalog/catalog-freshness.js';

/** Servers listed by name in the section; the rest are counted. */
export const SERVER_STATUS_PROMPT_LIMIT = 8;

const reasons: Record<Extract<ServerFreshness, { kind: 'unavailable' }>['reason'], string> = {
  removed: 'it was removed',
  disabled: 'it is turned off',
  'not-warmed': 'its tool list has not been read yet',
  error: 'its tool list could not be read',
  'definition-changed': 'its definition changed and its tool list is being read again',
  unreadable: 'its cached tool list is unreadable',
  'auth-required': 'it needs authorization agentq does not have (an operator must authorize it)',
  'auth-failed': "it refused agentq's authorization (an operator must authorize it again)",
};

function lineOf(freshness: ServerFreshness): string {
  // Quoted: the text is the server's, to be read as data.
  const error = freshness.error === undefined ? '' : ` (error: ${JSON.stringify(freshness.error)})`;
  if (freshness.kind === 'stale' && freshness.authorization) {
    return `- ${freshness.label}: needs authorization (an operator must authorize it)${error}; its tools will likely fail`;
  }
  if (freshness.kind === 'stale') {
    return `- ${freshness.label}: stale since ${minuteOf(freshness.since)}, refreshes failing${error}; its tools may be outdated or fail`;
  }
  return `- ${freshness.label}: unavailable, ${reasons[freshness.reason]}${error}; its tools are missing from this run`;
}

/**
 * The system prompt section naming the requested MCP servers that are unavailable (no tools in
 * this run) or stale (serving a last good list while refreshes fail), and since when. Bounded: at
 * most `limit` servers are listed, then a count of the rest, and every error is a short one-line
 * excerpt of the masked status text. Empty when every requested server is fine. Sorted by label,
 * so the prompt prefix stays stable for prompt caching.
 */
export function buildServerStatusPrompt(
  servers: readonly ServerFreshness[],
  limit: number = SERVER_STATUS_PROMPT_LIMIT,
): string {
  if (servers.length === 0) return '';
  const sorted = [...servers].sort((a, b) =>
    a.label < b.label ? -1 : a.label > b.label ? 1 : a.serverId < b.serverId ? -1 : 1,
  );
  const shown = sorted.slice(0, Math.max(1, limit)).map(lineOf);
  const more = sorted.length - shown.length;
  return [
    '<mcp_server_status>',
    'Some MCP servers of this request are unavailable or stale:',
    ...shown,
    ...(more > 0 ? [`- and ${more} more`] : []),
    '</mcp_server_status>',
  ].join('\n');
}
