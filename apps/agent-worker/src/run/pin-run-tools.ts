import { AgentqError, digestOf, parseToolId, type CatalogEntry, type Logger } from '@agentq/shared';
import { toolInputSchema } from '@agentq/registry';
import type { Tool, ToolSet } from 'ai';
import type { RunTools } from './build-run-tools.js';
import type { RunCatalogSnapshots } from './run-processor-dependencies.js';

export type { RunCatalogSnapshots };

type CatalogTool = CatalogEntry['tools'][number];

/** Options of {@link pinRunTools}. */
export interface PinRunToolsOptions {
  /** The attempt's tools, built from the live catalog. */
  runTools: RunTools;
  /** The catalog version of each server whose tools the run has shown the model so far (the checkpoint's). */
  pinned: Readonly<Record<string, string>>;
  /** Every MCP tool name the run has shown the model → its tool id (the checkpoint's). */
  shownNames: Readonly<Record<string, string>>;
  snapshots: RunCatalogSnapshots;
  /** How long each snapshot stays readable from now, in seconds. */
  ttlSeconds: number;
  logger: Logger;
}

/**
 * Keeps a run on the catalog versions it was shown. Each attempt keeps the snapshot of every
 * version the run shows alive (see `CatalogStore.pinSnapshots`; a process refreshes one at most
 * once an hour). When a server's live version is
 * not the one the run was shown (a resume, a retry), the run's inline tools of that server are
 * rebuilt from the pinned snapshot: the same names, descriptions and input schemas as before, and
 * tools the server has gained since stay hidden. A call to such a tool is checked against the live
 * catalog when it is made, and fails closed with a tool error if the tool is gone or its input
 * schema changed; otherwise it goes to the live tool (journal, approval policy and all).
 *
 * A server whose snapshot is gone (never written: an entry from before versions, or expired) is
 * shown as it is now, and its live version becomes the run's pin from then on. Deferred tools are
 * reached through the meta tools, which read the live catalog.
 */
export async function pinRunTools(options: PinRunToolsOptions): Promise<RunTools> {
  const { runTools, pinned, snapshots } = options;
  const live = runTools.catalogVersion;
  const servers = [...new Set([...Object.keys(pinned), ...Object.keys(live)])].sort();
  if (servers.length === 0) return runTools;
  const wanted = servers.map((serverId) => ({ serverId, version: pinned[serverId] ?? (live[serverId] as string) }));
  const kept = await pinRecently(snapshots, wanted, options.ttlSeconds);
  const drifted = wanted.filter(({ serverId, version }, index) => kept[index] && live[serverId] !== version);
  if (drifted.length === 0) return runTools;
  const entries = await Promise.all(drifted.map(({ serverId, version }) => snapshots.readSnapshot(serverId, version)));
  const tools: ToolSet = { ...runTools.tools };
  const catalogVersion = { ...live };
  drifted.forEach(({ serverId, version }, index) => {
    const entry = entries[index];
    if (!entry) return;
    options.logger.info(
      { serverId, pinned: version, live: live[serverId] ?? null },
      "the server's tools changed since the run was shown them; showing the run's version",
    );
    catalogVersion[serverId] = version;
    showPinnedServer({ tools, runTools, serverId, version, entry, shownNames: options.shownNames, snapshots });
  });
  return { ...runTools, tools, catalogVersion };
}

/** How long a process trusts its own refresh of a snapshot's TTL (days long) before refreshing it again. */
const REPIN_AFTER_MS = 3_600_000;
const pinnedAt = new WeakMap<RunCatalogSnapshots, Map<string, number>>();

/**
 * {@link CatalogStore.pinSnapshots} for the pins this process has not refreshed in the last hour:
 * a worker starting many runs on the same catalog pays no round trip for it but once an hour.
 */
async function pinRecently(
  snapshots: RunCatalogSnapshots,
  wanted: ReadonlyArray<{ serverId: string; version: string }>,
  ttlSeconds: number,
): Promise<boolean[]> {
  let recent = pinnedAt.get(snapshots);
  if (!recent) pinnedAt.set(snapshots, (recent = new Map()));
  const now = Date.now();
  const key = (pin: { serverId: string; version: string }) => `${pin.serverId}\u0000${pin.version}`;
  const due = wanted.filter((pin) => now - (recent.get(key(pin)) ?? -Infinity) >= REPIN_AFTER_MS);
  const dueKept = due.length === 0 ? [] : await snapshots.pinSnapshots(due, ttlSeconds);
  due.forEach((pin, index) => {
    if (dueKept[index]) recent.set(key(pin), now);
    else recent.delete(key(pin));
  });
  if (recent.size > 100_000) recent.clear();
  return wanted.map((pin) => recent.has(key(pin)));
}

/** Replaces the run's tools of one server in `tools` by the pinned version's. */
function showPinnedServer(options: {
  tools: ToolSet;
  runTools: RunTools;
  serverId: string;
  version: string;
  entry: CatalogEntry;
  shownNames: Readonly<Record<string, string>>;
  snapshots: RunCatalogSnapshots;
}): void {
  const { tools, runTools, serverId } = options;
  const shown = new Set<string>();
  for (const [wireName, toolId] of Object.entries(options.shownNames)) {
    const parsed = parseToolId(toolId);
    if (parsed?.serverId !== serverId) continue;
    const pinnedTool = options.entry.tools.find((each) => each.name === parsed.toolName);
    if (!pinnedTool) continue;
    shown.add(wireName);
    const live = tools[wireName];
    // Deferred now: reached through the meta tools, on the live catalog.
    if (!live && wireName in runTools.allTools) continue;
    // Gone from the live catalog: shown as before when the run defers nothing, so the model's
    // call gets a clear refusal rather than an unknown tool.
    if (!live && runTools.deferred.length > 0) continue;
    const check = (): Promise<void> =>
      checkLiveTool({ snapshots: options.snapshots, serverId, pinnedTool, version: options.version, live });
    tools[wireName] = pinnedToolOf(pinnedTool, live, check);
  }
  // Tools the server gained since: the run was never shown them.
  for (const [wireName, toolId] of Object.entries(runTools.wireNames)) {
    if (!shown.has(wireName) && parseToolId(toolId)?.serverId === serverId) delete tools[wireName];
  }
}

/** The tool as the pinned version defined it, calling `live` (when there is one) after `check`. */
function pinnedToolOf(pinned: CatalogTool, live: Tool | undefined, check: () => Promise<void>): Tool {
  const shape = {
    title: pinned.title,
    description: pinned.description ?? pinned.title ?? pinned.name,
    inputSchema: toolInputSchema(pinned.inputSchema),
  };
  const execute = live?.execute;
  return {
    ...live,
    ...shape,
    execute: async (input: unknown, executionOptions: Parameters<NonNullable<Tool['execute']>>[1]) => {
      await check();
      if (!execute) throw new AgentqError({ code: 'TOOL_NOT_EXECUTABLE', message: `tool ${pinned.name} cannot run` });
      return await execute(input, executionOptions);
    },
  } as Tool;
}

/** Fails closed unless the live catalog still has the tool with the input schema the run was shown. */
async function checkLiveTool(options: {
  snapshots: RunCatalogSnapshots;
  serverId: string;
  version: string;
  pinnedTool: CatalogTool;
  live: Tool | undefined;
}): Promise<void> {
  const { serverId, pinnedTool } = options;
  const record = await options.snapshots.read(serverId);
  const entry = record.entry?.success ? record.entry.data : undefined;
  const current = entry?.tools.find((each) => each.name === pinnedTool.name);
  if (!current || !options.live) {
    throw new AgentqError({
      code: 'TOOL_NOT_FOUND',
      message: `tool ${pinnedTool.name} of MCP server ${serverId} is gone since this run was shown it (catalog version ${options.version}); it was not called`,
    });
  }
  if (digestOf(current.inputSchema) !== digestOf(pinnedTool.inputSchema)) {
    throw new AgentqError({
      code: 'CONFLICT',
      message: `tool ${pinnedTool.name} of MCP server ${serverId} changed its input schema since this run was shown it (catalog version ${options.version}, now ${entry?.version ?? 'unknown'}); it was not called`,
    });
  }
}
