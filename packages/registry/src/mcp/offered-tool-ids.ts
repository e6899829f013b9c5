import { toolId, type CatalogTool, type ServerDefinition } from '@agentq/shared';

interface Offered {
  serverId: string;
  definition: ServerDefinition;
  ids: readonly string[];
}

// Keyed by the cached list itself: the catalog reader hands out the same array for as long as a
// server's entry is unchanged, and the same definition object for the same definition text.
const offeredByList = new WeakMap<readonly CatalogTool[], Offered>();

/**
 * The ids (`serverId:toolName`) of the tools a server offers: its cached list in order, minus its
 * own disable list. Computed once per list and definition, so an unchanged server costs a run start
 * one lookup instead of a new id string per tool; the same id strings come back every time.
 */
export function offeredToolIds(
  serverId: string,
  tools: readonly CatalogTool[],
  definition: ServerDefinition,
): readonly string[] {
  const known = offeredByList.get(tools);
  if (known && known.serverId === serverId && known.definition === definition) return known.ids;
  const disabled = new Set(definition.disabledTools);
  const ids: string[] = [];
  for (const tool of tools) if (!disabled.has(tool.name)) ids.push(toolId(serverId, tool.name));
  offeredByList.set(tools, { serverId, definition, ids });
  return ids;
}
