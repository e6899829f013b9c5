import { z } from 'zod';

/**
 * What a token may do over HTTP: `runs` (runs and schedules), `approvals` (list and decide),
 * `servers` (server definitions and catalogs), `kbs` (knowledge bases), `admin` (Bull Board,
 * `/metrics`).
 */
export const API_SCOPES = ['runs', 'approvals', 'servers', 'kbs', 'admin'] as const;

/** One scope of {@link API_SCOPES}. */
export type ApiScope = (typeof API_SCOPES)[number];

/** A named API token and what it may do. */
export interface ApiToken {
  /** Recorded as `decidedBy` of the decisions taken with it. */
  name: string;
  scopes: ApiScope[];
  /** The secret itself. Never log it. */
  token: string;
}

/** Name of the all-scopes token that `AGENTQ_API_TOKEN` defines. */
export const DEFAULT_TOKEN_NAME = 'default';

const tokenName = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

/**
 * Parses `AGENTQ_API_TOKENS`: entries `name:scope,scope=token` separated by `;`, for example
 * `alice:runs,approvals=<token>;ops:admin=<token>`. Scope `all` stands for every scope. Tokens are
 * at least 16 characters and may hold any character but `;`. Names and tokens are unique.
 *
 * The messages name the entry by its position and name, never by its token: they end up in logs.
 */
export function parseApiTokens(text: string): { tokens: ApiToken[] } | { error: string } {
  const tokens: ApiToken[] = [];
  const entries = text
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return { error: 'must hold at least one name:scopes=token entry' };
  for (const [index, entry] of entries.entries()) {
    const where = `entry ${index + 1}`;
    const equals = entry.indexOf('=');
    if (equals < 0) return { error: `${where} must look like name:scope,scope=token` };
    const head = entry.slice(0, equals).trim();
    const token = entry.slice(equals + 1).trim();
    const colon = head.indexOf(':');
    if (colon < 0) return { error: `${where} must name its scopes: name:scope,scope=token` };
    const name = head.slice(0, colon).trim();
    if (!tokenName.test(name)) {
      return { error: `${where}: the name must be 1-64 letters, digits, "_", ".", "@" or "-"` };
    }
    const scopes = new Set<ApiScope>();
    for (const scope of head
      .slice(colon + 1)
      .split(',')
      .map((part) => part.trim())) {
      if (scope === 'all') for (const each of API_SCOPES) scopes.add(each);
      else if ((API_SCOPES as readonly string[]).includes(scope)) scopes.add(scope as ApiScope);
      else return { error: `token "${name}": unknown scope "${scope}" (use ${API_SCOPES.join(', ')} or all)` };
    }
    if (token.length < 16) return { error: `token "${name}" must be at least 16 characters` };
    if (tokens.some((other) => other.name === name)) return { error: `token name "${name}" is used twice` };
    // Two names for one secret would make the recorded decider ambiguous.
    if (tokens.some((other) => other.token === token)) return { error: `token "${name}" reuses another entry's token` };
    tokens.push({ name, scopes: API_SCOPES.filter((scope) => scopes.has(scope)), token });
  }
  return { tokens };
}

/** The zod schema of `AGENTQ_API_TOKENS`, for the config table. */
export const apiTokensSchema = z.string().transform((text, context) => {
  const parsed = parseApiTokens(text);
  if ('error' in parsed) {
    context.addIssue({ code: 'custom', message: parsed.error });
    return z.NEVER;
  }
  return parsed.tokens;
});
