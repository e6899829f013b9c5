import { z } from 'zod';
import { digestOf } from '../json/canonical-json.js';

/** A JSON-Schema object schema, as MCP requires for a tool's input. */
export const objectJsonSchemaSchema = z.looseObject({
  type: z.literal('object'),
  properties: z.record(z.string(), z.unknown()).optional(),
  required: z.array(z.string()).optional(),
});

/**
 * One MCP tool as cached: the parts of `tools/list` a run needs. Fields MCP adds later (`_meta`,
 * `icons`, ...) are dropped rather than rejected, so a newer server never poisons a whole entry.
 */
/**
 * A catalog version as a caller names it (`?version=`, `--version`): what the warmer makes (a hex
 * digest of the tool list), with room for letters, `.`, `_` and `-`; never a key pattern or a blank.
 */
export const catalogVersionSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9._-]{1,128}$/,
    'must be a catalog version: 1 to 128 letters, digits, ".", "_" or "-" (one a run step lists)',
  );

export const catalogToolSchema = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: objectJsonSchemaSchema,
  outputSchema: objectJsonSchemaSchema.optional(),
  annotations: z.record(z.string(), z.unknown()).optional(),
});

/** Catalog states of a server, shared by the entry and the status record. */
export const catalogStateSchema = z.enum(['connected', 'stale', 'error', 'disabled', 'auth-required', 'auth-failed']);

/** The states of a server that refused agentq for want of authorization: not retried on a backoff. */
export const AUTH_CATALOG_STATES = ['auth-required', 'auth-failed'] as const;

/** Whether `state` is one of {@link AUTH_CATALOG_STATES}. */
export function isAuthCatalogState(state: string | undefined): state is (typeof AUTH_CATALOG_STATES)[number] {
  return state === 'auth-required' || state === 'auth-failed';
}

/**
 * MCP `cacheScope` of a `tools/list` result: `private` means the list is valid for agentq's own
 * identity on that server only (it may differ for another client); `shared` (or none) is the
 * usual case. agentq serves both to its runs the same way; the scope is shown to operators.
 */
export const catalogCacheScopeSchema = z.enum(['shared', 'private']);

/**
 * Who read a list, and over which MCP session: `watcher` is the long-lived session of the server's
 * watcher owner (the session `tools/list_changed` arrives on), `fresh` a connection opened for this
 * one read.
 */
export const catalogReadBySchema = z.object({
  warmerId: z.string().min(1),
  session: z.enum(['watcher', 'fresh']),
});

/**
 * `P:mcp.tools.<serverId>`: the last known good tool list of one server.
 * A missing key means never warmed; `tools: []` means warmed and empty.
 */
export const catalogEntrySchema = z
  .object({
    tools: z.array(catalogToolSchema),
    /** `definitionHash` of the definition the list was read from. */
    definitionHash: z.string().min(1),
    /** Epoch ms of the successful read that produced `tools`. */
    refreshedAt: z.number().int().nonnegative(),
    state: catalogStateSchema,
    /**
     * Digest of `tools`; changes exactly when the list's content changes. Warmers always write it;
     * an entry written without one gets the digest of its tools when read.
     */
    version: z.string().min(1).optional(),
    /** The warmer and session that read `tools` (absent on entries written before it existed). */
    readBy: catalogReadBySchema.optional(),
    /** `ttlMs` hint of the `tools/list` result, as the server sent it (a positive number). */
    ttlMs: z.number().int().positive().optional(),
    /** `cacheScope` hint of the `tools/list` result. */
    cacheScope: catalogCacheScopeSchema.optional(),
  })
  .transform((entry) => ({ ...entry, version: entry.version ?? digestOf(entry.tools) }));

/** Most skipped tools a server status lists. */
export const MAX_SKIPPED_TOOLS_SHOWN = 100;

/**
 * `P:mcp.status.<serverId>`: the outcome of the latest refresh attempt. Fields a newer warmer adds
 * are dropped on read rather than rejected (known fields are still checked), so roles on an older
 * version keep reading statuses during a rolling upgrade.
 */
export const catalogStatusSchema = z.object({
  state: catalogStateSchema,
  error: z.string().optional(),
  /** Code of `error` (`MCP_LIST_TOO_LARGE`, `MCP_CONNECT_TIMEOUT`, ...), when the failure had one. */
  errorCode: z.string().max(100).optional(),
  /**
   * Tools of the latest successful read left out of the cache or changed on the way in (a schema
   * that is not an object or nests too deep, a repeated name), with the reason; the first
   * {@link MAX_SKIPPED_TOOLS_SHOWN} of them.
   */
  skippedTools: z
    .array(z.object({ name: z.string().max(200), reason: z.string().max(500) }))
    .max(100)
    .optional(),
  lastAttemptAt: z.number().int().nonnegative(),
  lastSuccessAt: z.number().int().nonnegative().optional(),
  toolCount: z.number().int().nonnegative(),
  /** Consecutive failed refreshes, for backoff. */
  failures: z.number().int().nonnegative().default(0),
  /** Epoch ms before which warmers do not re-probe on their own. */
  nextAttemptAt: z.number().int().nonnegative().optional(),
  /** Definition hash of the latest attempt. */
  definitionHash: z.string().optional(),
  /** The warmer and session of the latest successful read. */
  readBy: catalogReadBySchema.optional(),
  /** `ttlMs` hint of the latest successful read, as sent. */
  ttlMs: z.number().int().positive().optional(),
  /** `cacheScope` hint of the latest successful read. */
  cacheScope: catalogCacheScopeSchema.optional(),
  /** Epoch ms of the background refresh that the `ttlMs` hint scheduled (after clamping). */
  nextRefreshAt: z.number().int().nonnegative().optional(),
});

/** Pub/sub message on `P:catalog.updated`; unknown fields are dropped, as for the status. */
export const catalogUpdatedEventSchema = z.object({
  serverId: z.string().min(1),
  version: z.string(),
});

export type CatalogTool = z.output<typeof catalogToolSchema>;
export type CatalogCacheScope = z.output<typeof catalogCacheScopeSchema>;
export type CatalogReadBy = z.output<typeof catalogReadBySchema>;
export type CatalogEntry = z.output<typeof catalogEntrySchema>;
export type CatalogState = z.output<typeof catalogStateSchema>;
export type CatalogStatus = z.output<typeof catalogStatusSchema>;
export type CatalogUpdatedEvent = z.output<typeof catalogUpdatedEventSchema>;
