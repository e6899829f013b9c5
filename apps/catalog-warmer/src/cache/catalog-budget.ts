import { MCP_ERROR_CODES, MESSAGE_BUDGET_FACTOR, type MessageByteLimit } from '@agentq/mcp-connect';
import { NonRetryableError, type CatalogTool, type Config } from '@agentq/shared';

/** What one server's tool list may cost the cache, from `AGENTQ_MAX_*` (see the config table). */
export interface CatalogBudget {
  /** `AGENTQ_MAX_TOOLS_PER_SERVER`. @default 2000 */
  maxTools: number;
  /** `AGENTQ_MAX_CATALOG_ENTRY_BYTES`: bytes of the cached tools' JSON. @default 4194304 */
  maxEntryBytes: number;
  /** `AGENTQ_MAX_TOOL_DESCRIPTION_CHARS`. @default 8000 */
  maxDescriptionChars: number;
  /** `AGENTQ_MAX_SCHEMA_DEPTH`. @default 32 */
  maxSchemaDepth: number;
}

/** The budget the configuration defaults give. */
export const DEFAULT_CATALOG_BUDGET: Readonly<CatalogBudget> = {
  maxTools: 2_000,
  maxEntryBytes: 4_194_304,
  maxDescriptionChars: 8_000,
  maxSchemaDepth: 32,
};

/** What ends a description or title cut to the budget, so the model can tell it is incomplete. */
export const TRUNCATION_NOTE = '… [truncated]';

/** The budget of a configuration. */
export function catalogBudgetOf(
  config: Partial<
    Pick<Config, 'maxToolsPerServer' | 'maxCatalogEntryBytes' | 'maxToolDescriptionChars' | 'maxSchemaDepth'>
  >,
): CatalogBudget {
  return {
    maxTools: config.maxToolsPerServer ?? DEFAULT_CATALOG_BUDGET.maxTools,
    maxEntryBytes: config.maxCatalogEntryBytes ?? DEFAULT_CATALOG_BUDGET.maxEntryBytes,
    maxDescriptionChars: config.maxToolDescriptionChars ?? DEFAULT_CATALOG_BUDGET.maxDescriptionChars,
    maxSchemaDepth: config.maxSchemaDepth ?? DEFAULT_CATALOG_BUDGET.maxSchemaDepth,
  };
}

/** `text` cut to `maxChars` characters, the note included, when it is longer. */
export function truncateText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const kept = Math.max(0, maxChars - TRUNCATION_NOTE.length);
  // Never split a surrogate pair: half a character would not survive a round trip through JSON.
  const end = /[\uD800-\uDBFF]/.test(text.charAt(kept - 1)) ? kept - 1 : kept;
  return text.slice(0, end) + TRUNCATION_NOTE;
}

/**
 * Whether a JSON value nests objects and arrays more than `maxDepth` levels (the value itself is
 * level 1). Walks with its own stack and stops as soon as the answer is known, so a hostile schema
 * nested a million levels deep costs no more than `maxDepth` levels and never overflows the stack.
 */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 1 }];
  while (stack.length > 0) {
    const current = stack.pop() as { value: unknown; depth: number };
    if (current.value === null || typeof current.value !== 'object') continue;
    if (current.depth > maxDepth) return true;
    const members = Array.isArray(current.value) ? current.value : Object.values(current.value);
    for (const member of members) {
      if (member !== null && typeof member === 'object') stack.push({ value: member, depth: current.depth + 1 });
    }
  }
  return false;
}

/**
 * Refuses a normalised list over the byte budget: `MCP_LIST_TOO_LARGE`, naming the limit and the
 * size. (The tool count is checked while the list is read, so that reading stops early.)
 */
export function checkListBytes(tools: readonly CatalogTool[], budget: Pick<CatalogBudget, 'maxEntryBytes'>): void {
  const bytes = Buffer.byteLength(JSON.stringify(tools), 'utf8');
  if (bytes <= budget.maxEntryBytes) return;
  throw new NonRetryableError({
    code: MCP_ERROR_CODES.listTooLarge,
    message: `the tool list takes ${bytes} bytes, over AGENTQ_MAX_CATALOG_ENTRY_BYTES=${budget.maxEntryBytes}`,
  });
}

/**
 * The cap on one message an HTTP server sends a warmer (a `tools/list` page as JSON, or one event
 * of an event stream): {@link MESSAGE_BUDGET_FACTOR} times `AGENTQ_MAX_CATALOG_ENTRY_BYTES`, room
 * for descriptions that are cut afterwards. Past it the read stops with `MCP_LIST_TOO_LARGE`, so a
 * server answering with hundreds of megabytes is refused while it is read, never buffered whole.
 */
export function listMessageLimit(budget: Pick<CatalogBudget, 'maxEntryBytes'>): MessageByteLimit {
  const maxBytes = MESSAGE_BUDGET_FACTOR * budget.maxEntryBytes;
  return {
    maxBytes,
    tooLarge: () =>
      new NonRetryableError({
        code: MCP_ERROR_CODES.listTooLarge,
        message: `an answer of the server runs past ${maxBytes} bytes (${MESSAGE_BUDGET_FACTOR} × AGENTQ_MAX_CATALOG_ENTRY_BYTES); reading stopped there`,
      }),
  };
}
