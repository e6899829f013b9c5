import { AgentqError } from '@agentq/shared';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { isTimeout, messageOf } from './connect-mcp-server.js';

// Deliberately looser than the SDK's own result schema: one tool with a bad schema must not make
// the whole page unreadable. Each item is checked on its own afterwards.
const looseListResultSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** Upper bound on pages, against a server that keeps handing out new cursors forever. */
export const MAX_LIST_PAGES = 10_000;

/**
 * Reads a server's whole tool list, following `nextCursor` to the end, within `timeoutMs` for all
 * pages together. Returns the raw items. Fails with `MCP_LIST_TIMEOUT` or `MCP_LIST_FAILED`; a
 * cursor the server already handed out counts as a failure rather than a loop.
 */
export async function listServerTools(options: {
  client: Client;
  serverId: string;
  timeoutMs: number;
  signal?: AbortSignal;
}): Promise<unknown[]> {
  const deadline = Date.now() + options.timeoutMs;
  const items: unknown[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new AgentqError({ code: 'MCP_LIST_TIMEOUT', message: 'list deadline passed' });
      const result = await withPageSignal(options.signal, (signal) =>
        options.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          looseListResultSchema,
          { timeout: remaining, signal },
        ),
      );
      items.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return items;
      if (seenCursors.has(cursor)) {
        throw new AgentqError({ code: 'MCP_LIST_FAILED', message: `cursor ${cursor} repeated` });
      }
      seenCursors.add(cursor);
    }
    throw new AgentqError({ code: 'MCP_LIST_FAILED', message: `more than ${MAX_LIST_PAGES} pages` });
  } catch (error) {
    const timedOut = isTimeout(error) || (AgentqError.isInstance(error) && error.code === 'MCP_LIST_TIMEOUT');
    throw new AgentqError({
      code: timedOut ? 'MCP_LIST_TIMEOUT' : 'MCP_LIST_FAILED',
      message: timedOut
        ? `MCP server ${options.serverId} did not list its tools within ${options.timeoutMs} ms`
        : `MCP server ${options.serverId}: tools/list failed (${messageOf(error)})`,
      cause: error,
    });
  }
}

// The SDK leaves its abort listener on the signal it is given; one short-lived signal per page
// keeps a long pagination from piling listeners onto the job's signal.
async function withPageSignal<T>(
  parent: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(parent?.reason);
  if (parent?.aborted) abort();
  parent?.addEventListener('abort', abort, { once: true });
  try {
    return await run(controller.signal);
  } finally {
    parent?.removeEventListener('abort', abort);
  }
}
