import { describe, expect, it } from 'vitest';
import type { CatalogEntry, CatalogStatus } from '../schemas/catalog.js';
import { serverDefinitionSchema } from '../schemas/server-definition.js';
import { definitionHash } from '../servers/definition-hash.js';
import { serverCatalogStateOf, SERVER_CATALOG_STATES } from './server-catalog-state.js';

const definition = serverDefinitionSchema.parse({ id: 's1', transport: { type: 'stdio', command: 'x' } });
const hash = definitionHash(definition);
const entry = (state: CatalogEntry['state'], entryHash = hash): CatalogEntry => ({
  tools: [],
  definitionHash: entryHash,
  refreshedAt: 1,
  state,
  version: 'v',
});
const status = (state: CatalogStatus['state'], statusHash = hash): CatalogStatus => ({
  state,
  lastAttemptAt: 1,
  toolCount: 0,
  failures: state === 'connected' ? 0 : 1,
  definitionHash: statusHash,
});

describe('serverCatalogStateOf', () => {
  it('names each situation with one of the state words', () => {
    const cases: Array<[Parameters<typeof serverCatalogStateOf>[0], string]> = [
      [{ definition, entry: entry('connected'), status: status('connected') }, 'connected'],
      // A failed refresh over a good list: the list is served, marked stale.
      [{ definition, entry: entry('stale'), status: status('stale') }, 'stale'],
      // The status record was marked failed (a watcher that cannot reconnect) before the entry was.
      [{ definition, entry: entry('connected'), status: status('error') }, 'stale'],
      [{ definition, entry: null, status: status('error') }, 'error'],
      [{ definition, entry: null, status: null }, 'never-warmed'],
      // Records of an older definition do not count.
      [{ definition, entry: entry('connected', 'old'), status: status('connected', 'old') }, 'never-warmed'],
      [{ definition, entry: null, status: status('error', 'old') }, 'never-warmed'],
      [{ definition: { ...definition, enabled: false }, entry: null, status: status('disabled') }, 'disabled'],
      // Re-enabled, not listed yet.
      [{ definition, entry: null, status: status('disabled') }, 'never-warmed'],
      [{ definition: null, entry: entry('connected'), status: null }, 'connected'],
      // An entry that cannot be read, whatever the status says.
      [{ definition, entry: null, status: status('connected'), corrupt: true }, 'corrupt'],
      [{ definition, entry: null, status: null, corrupt: true }, 'corrupt'],
      [{ definition, entry: null, status: status('error'), corrupt: true }, 'corrupt'],
      [{ definition: { ...definition, enabled: false }, entry: null, status: null, corrupt: true }, 'disabled'],
    ];
    for (const [input, expected] of cases) {
      expect(serverCatalogStateOf(input), JSON.stringify(input)).toBe(expected);
      expect(SERVER_CATALOG_STATES).toContain(expected);
    }
  });
});
