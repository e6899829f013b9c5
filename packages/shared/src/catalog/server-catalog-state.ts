import { isAuthCatalogState, type CatalogEntry, type CatalogStatus } from '../schemas/catalog.js';
import type { ServerDefinition } from '../schemas/server-definition.js';
import { definitionHash } from '../servers/definition-hash.js';

/**
 * The words for a server's catalog state, the same in the CLI, the REST API, the admin pages and
 * the `agentq_catalog_state` metric:
 * - `connected`: the latest refresh succeeded; runs get a fresh list;
 * - `stale`: the latest refresh failed (or the server's watcher lost it); runs get the last good list;
 * - `error`: the latest refresh failed and there is no usable list; runs get no tools from it;
 * - `never-warmed`: no refresh of the current definition has finished yet;
 * - `corrupt`: the cached list cannot be read (not JSON, not an entry, or a catalog key of another
 *   Redis type); runs get no tools from it, and ask the warmers again for a list that replaces it;
 * - `disabled`: the operator disabled the server; runs do not use it;
 * - `auth-required`: the server answered 401 (or 403 without details): it needs authorization;
 *   not retried until an operator refreshes, restarts, enables or edits it;
 * - `auth-failed`: the server refused agentq's credentials with an OAuth error (shown, masked, in
 *   the status); not retried either.
 */
export const SERVER_CATALOG_STATES = [
  'connected',
  'stale',
  'error',
  'never-warmed',
  'corrupt',
  'disabled',
  'auth-required',
  'auth-failed',
] as const;

/** One of {@link SERVER_CATALOG_STATES}. */
export type ServerCatalogState = (typeof SERVER_CATALOG_STATES)[number];

/**
 * Derives the one state word of a server from its definition, its cached list and its status
 * record. Only a list and a status of the current definition count: after an edit the server is
 * `never-warmed` until a warmer has read the new definition, whatever the old one did.
 */
export function serverCatalogStateOf(input: {
  /** `null` when the server is no longer defined (a leftover cache entry). */
  definition: ServerDefinition | null;
  entry: CatalogEntry | null;
  status: CatalogStatus | null;
  /**
   * Whether the cache cannot be read (an unparsable entry, or a key of another type; see the
   * store's `CatalogRecord.corrupt`). @default false
   */
  corrupt?: boolean;
}): ServerCatalogState {
  const { definition } = input;
  if (definition && !definition.enabled) return 'disabled';
  const hash = definition ? definitionHash(definition) : undefined;
  const current = (recordHash: string | undefined) => hash === undefined || recordHash === hash;
  const entry = input.entry && current(input.entry.definitionHash) ? input.entry : null;
  const status = currentCatalogStatus(definition, input.status);
  // Authorization refusals win over a kept list: the operator has to act.
  if (isAuthCatalogState(status?.state)) return status.state;
  // Whatever the status says, runs get nothing from a cache they cannot read.
  if (input.corrupt) return 'corrupt';
  const failed = status?.state === 'stale' || status?.state === 'error';
  if (entry) return failed || entry.state === 'stale' ? 'stale' : 'connected';
  return failed ? 'error' : 'never-warmed';
}

/**
 * The status record if it is about `definition` (or the server is no longer defined), else `null`:
 * after an edit, what a warmer said of the old definition (its tool count, last success, error) is
 * not the server's status. A status without a hash predates hashes in status records: it counts.
 */
export function currentCatalogStatus(
  definition: ServerDefinition | null,
  status: CatalogStatus | null,
): CatalogStatus | null {
  if (!status || !definition || status.definitionHash === undefined) return status;
  return status.definitionHash === definitionHash(definition) ? status : null;
}
