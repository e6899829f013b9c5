import type { AgentqClient } from '@agentq/client';
import { assignMcpWireNames, assignServerSegments } from '@agentq/registry';
import { definitionHash, maskServerError, type ServerCatalogState } from '@agentq/shared';
import { CatalogStore, keyNames, Lease } from '@agentq/store';
import { escapeHtml, formatDuration, formatTime, page } from './html.js';

/** One server as the catalog page shows it. */
export interface CatalogServerRow {
  serverId: string;
  name?: string;
  enabled: boolean;
  /** The server uses the OAuth authorization-code grant: the page offers "Connect". */
  connectable: boolean;
  /** The one catalog state word (see `SERVER_CATALOG_STATES`). */
  state: ServerCatalogState;
  ageMs?: number;
  toolCount: number;
  /** The last error, masked again with this process's secret values. */
  error?: string;
  /** When the next refresh is due: the `ttlMs` refresh, or the end of a failure backoff. */
  nextRefreshAt?: number;
  /** The warmer that holds the server's watcher lease. */
  watchedBy?: string;
  /** Whether the server declared `tools.listChanged`; undefined until a warmer has seen it. */
  listChanged?: boolean;
  /** Tools with the wire names runs give them. */
  tools: Array<{ name: string; wireName: string; description?: string }>;
}

/**
 * Reads what the catalog page shows, from the cache only (no server is contacted): each server's
 * cached list and status, the holder of its watcher lease and its recorded `list_changed` support.
 * Wire names come from the registry's own assignment over the enabled servers, so they match what
 * workers give the model.
 */
export async function readCatalogRows(options: {
  client: AgentqClient;
  secretValues: readonly string[];
}): Promise<CatalogServerRow[]> {
  const { client } = options;
  const keys = keyNames(client.prefix);
  const catalog = new CatalogStore({ redis: client.redis, prefix: client.prefix });
  const servers = await client.listServers();
  const segments = assignServerSegments(
    servers.filter((server) => server.definition.enabled).map((server) => server.definition.id),
  );
  return await Promise.all(
    servers.map(async ({ definition }): Promise<CatalogServerRow> => {
      const [view, [watchedBy], capability] = await Promise.all([
        client.getCatalog(definition.id),
        Lease.holders(client.redis, [keys.watchLease(definition.id)]),
        catalog.readCapability(definition.id, definitionHash(definition)),
      ]);
      const wireNames = assignMcpWireNames(
        view.tools.map((tool) => ({
          serverId: definition.id,
          toolName: tool.name,
          segment: segments.get(definition.id),
        })),
      );
      const status = view.status;
      const row: CatalogServerRow = {
        serverId: definition.id,
        name: definition.name,
        enabled: definition.enabled,
        connectable: definition.auth?.grant === 'authorization_code',
        state: view.state,
        ageMs: view.ageMs,
        toolCount: view.tools.length,
        tools: view.tools.map((tool) => ({
          name: tool.name,
          wireName: wireNames.get(`${definition.id}:${tool.name}`) ?? '—',
          description: tool.description,
        })),
      };
      if (status?.error) row.error = maskServerError(status.error, options.secretValues);
      const nextRefreshAt = status?.nextRefreshAt ?? status?.nextAttemptAt;
      if (nextRefreshAt !== undefined) row.nextRefreshAt = nextRefreshAt;
      if (watchedBy) row.watchedBy = watchedBy;
      if (capability) row.listChanged = capability.listChanged;
      return row;
    }),
  );
}

function yesNo(value: boolean | undefined): string {
  return value === undefined ? 'unknown' : value ? 'yes' : 'no';
}

/** First line of an error, short enough for a table cell. */
function shortError(error: string): string {
  const line = error.split('\n')[0] ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

function summaryRow(row: CatalogServerRow, csrf: string): string {
  const id = escapeHtml(row.serverId);
  return `<tr class="server" data-server-id="${id}">
  <td><a href="#server-${id}"><code>${id}</code></a>${row.name ? ` <span class="muted">${escapeHtml(row.name)}</span>` : ''}</td>
  <td><span class="server-state server-state-${row.state}">${row.state}</span></td>
  <td class="tool-count">${row.toolCount}</td>
  <td class="age" data-age-ms="${row.ageMs ?? ''}">${row.ageMs === undefined ? '—' : escapeHtml(formatDuration(row.ageMs))}</td>
  <td>${escapeHtml(formatTime(row.nextRefreshAt))}</td>
  <td class="short-error">${row.error ? escapeHtml(shortError(row.error)) : '—'}</td>
  <td><form method="post" action="/admin/catalog/${encodeURIComponent(row.serverId)}/refresh">
    <input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">
    <button type="submit" class="refresh"${row.enabled ? '' : ' disabled'}>Refresh now</button>
  </form>${
    row.connectable
      ? `<form method="post" action="/admin/catalog/${encodeURIComponent(row.serverId)}/connect">
    <input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">
    <button type="submit" class="connect">Connect</button>
  </form>`
      : ''
  }</td>
</tr>`;
}

function serverDetails(row: CatalogServerRow): string {
  const id = escapeHtml(row.serverId);
  const tools =
    row.tools.length === 0
      ? '<p class="muted">No tools cached.</p>'
      : `<table class="tools"><thead><tr><th>Tool</th><th>Wire name</th><th>Description</th></tr></thead><tbody>${row.tools
          .map(
            (tool) =>
              `<tr><td><code>${escapeHtml(tool.name)}</code></td><td><code class="wire-name">${escapeHtml(
                tool.wireName,
              )}</code></td><td>${escapeHtml(tool.description ?? '')}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  return `<details class="step server-details" id="server-${id}" data-server-id="${id}">
  <summary><code>${id}</code> · <span class="server-state server-state-${row.state}">${row.state}</span> · ${row.toolCount} tools</summary>
  <table class="header">
    <tr><th>Last error</th><td>${row.error ? `<pre class="last-error">${escapeHtml(row.error)}</pre>` : '—'}</td></tr>
    <tr><th>Watched by</th><td class="watched-by">${row.watchedBy ? `<code>${escapeHtml(row.watchedBy)}</code>` : '—'}</td></tr>
    <tr><th>list_changed</th><td class="list-changed">${yesNo(row.listChanged)}</td></tr>
  </table>
  ${tools}
</details>`;
}

/**
 * The catalog page: one summary row per server (state, tools, age, next refresh, last error and a
 * refresh button), then each server's details and tool table, folded.
 */
export function catalogPage(options: { rows: CatalogServerRow[]; csrf: string; notice?: string; error?: string }) {
  const { rows, csrf } = options;
  const body =
    rows.length === 0
      ? '<p id="empty">No MCP servers are defined.</p>'
      : `<table id="servers"><thead><tr><th>Server</th><th>State</th><th>Tools</th><th>Age</th><th>Next refresh</th><th>Last error</th><th></th></tr></thead>
<tbody>${rows.map((row) => summaryRow(row, csrf)).join('\n')}</tbody></table>
<p class="muted">States: <code>connected</code> fresh list · <code>stale</code> last good list after a failed refresh ·
<code>error</code> no usable list · <code>never-warmed</code> not listed yet · <code>corrupt</code> cached list unreadable, asked for again ·
<code>disabled</code> not used by runs · <code>auth-required</code>, <code>auth-failed</code> needs authorization.</p>
${rows.map(serverDetails).join('\n')}`;
  return page({
    title: 'Catalog',
    csrf,
    refreshSeconds: 15,
    body: `<h1>Tool catalog</h1>
${options.notice ? `<div class="notice" role="status">${escapeHtml(options.notice)}</div>` : ''}
${options.error ? `<div class="error" role="alert">${escapeHtml(options.error)}</div>` : ''}
${body}`,
  });
}
