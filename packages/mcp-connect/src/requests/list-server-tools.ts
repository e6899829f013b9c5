import { AgentqError, maskServerError } from '@agentq/shared';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { z } from 'zod';
import { authFailureOf } from '../errors/auth-refusal.js';
import { classifySdkError, messageOf } from '../errors/describe-sdk-error.js';
import { McpConnectError } from '../errors/mcp-connect-error.js';
import { MCP_ERROR_CODES } from '../errors/mcp-error-codes.js';
import { closeReasonOf } from '../connect/connect-mcp-server.js';
import { withRequestSignal } from './with-request-signal.js';

// Deliberately looser than the SDK's own result schema: one tool with a bad schema must not make
// the whole page unreadable. The caller checks each item on its own afterwards.
const looseListResultSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
});

/** Upper bound on pages, against a server that keeps handing out new cursors forever. */
export const MAX_LIST_PAGES = 10_000;

/** Options of {@link listServerTools}. */
export interface ListServerToolsOptions {
  client: Client;
  serverId: string;
  /** For all pages together (the definition's `timeouts.listMs`). */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Masked out of the error message. @default [] */
  secretValues?: readonly string[];
  /**
   * Most tools taken. Reading stops at the first page that goes past it, with `MCP_LIST_TOO_LARGE`
   * naming the limit and how many tools were seen by then.
   * @default no limit
   */
  maxItems?: number;
}

/**
 * Reads a server's whole tool list, following `nextCursor` to the end, within `timeoutMs` for all
 * pages together. Returns the raw items. Throws {@link McpConnectError} with `MCP_LIST_TIMEOUT`,
 * `MCP_TRANSPORT_CLOSED` (the server went away), `MCP_AUTH_REQUIRED` (HTTP 401/403) or `MCP_LIST_FAILED`; a cursor the server already handed out counts as a
 * failure rather than a loop.
 */
export async function listServerTools(options: ListServerToolsOptions): Promise<unknown[]> {
  const deadline = Date.now() + options.timeoutMs;
  const items: unknown[] = [];
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  const fail = (code: (typeof MCP_ERROR_CODES)[keyof typeof MCP_ERROR_CODES], detail: string, broken: boolean) =>
    new McpConnectError({
      code,
      message: maskServerError(`MCP server ${options.serverId}: ${detail}`, options.secretValues ?? []),
      connectionBroken: broken,
    });
  for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw fail(MCP_ERROR_CODES.listTimeout, `did not list its tools within ${options.timeoutMs} ms`, true);
    }
    let result: z.infer<typeof looseListResultSchema>;
    try {
      result = await withRequestSignal(options.signal, (signal) =>
        options.client.request(
          { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
          looseListResultSchema,
          { timeout: remaining, signal },
        ),
      );
    } catch (error) {
      // An answer past the connection's message limit (`messageLimit`): refused as it was read,
      // and the connection closed.
      const reason = closeReasonOf(options.client) ?? error;
      if (AgentqError.isInstance(reason) && reason.code === MCP_ERROR_CODES.listTooLarge) {
        throw fail(MCP_ERROR_CODES.listTooLarge, reason.message, true);
      }
      const kind = classifySdkError(error, options.client);
      if (kind === 'timeout') {
        throw fail(MCP_ERROR_CODES.listTimeout, `did not list its tools within ${options.timeoutMs} ms`, true);
      }
      // A 401/403 on the list itself (a token revoked since connect): the same refusal as at connect.
      const auth = authFailureOf({
        error,
        refusal: undefined,
        serverId: options.serverId,
        secretValues: options.secretValues ?? [],
      });
      if (auth) throw new McpConnectError({ ...auth, connectionBroken: true });
      if (kind === 'closed') throw fail(MCP_ERROR_CODES.transportClosed, 'connection closed during tools/list', true);
      throw fail(MCP_ERROR_CODES.listFailed, `tools/list failed (${messageOf(error)})`, kind !== 'answered');
    }
    for (const tool of result.tools) items.push(tool);
    if (options.maxItems !== undefined && items.length > options.maxItems) {
      const more = result.nextCursor === undefined ? '' : ' (and more pages)';
      throw fail(
        MCP_ERROR_CODES.listTooLarge,
        `lists ${items.length} tools${more}, over AGENTQ_MAX_TOOLS_PER_SERVER=${options.maxItems}`,
        false,
      );
    }
    cursor = result.nextCursor;
    if (cursor === undefined) return items;
    if (seenCursors.has(cursor)) throw fail(MCP_ERROR_CODES.listFailed, `cursor ${cursor} repeated`, false);
    seenCursors.add(cursor);
  }
  throw fail(MCP_ERROR_CODES.listFailed, `more than ${MAX_LIST_PAGES} pages`, false);
}
