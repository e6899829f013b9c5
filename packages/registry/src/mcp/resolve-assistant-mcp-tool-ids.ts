import type { Assistant } from '@agentq/shared';
import type { CatalogReader } from '../catalog/catalog-reader.js';
import { offeredToolIds } from './offered-tool-ids.js';

/**
 * The MCP tool ids an assistant may use, read from the catalog cache only: a never-warmed server
 * contributes nothing now (its read fires the reader's `onColdServer`), and no run waits for a
 * warm-up. `manual` means the named servers, `auto` every enabled server, `disabled` none. The
 * server's and the assistant's disable lists both apply. `manual` with no servers reads nothing.
 */
export async function resolveAssistantMcpToolIds(
  assistant: Pick<Assistant, 'mcpMode' | 'mcpServers' | 'disabledTools'>,
  reader: CatalogReader,
): Promise<Set<string>> {
  const out = new Set<string>();
  const mode = assistant.mcpMode ?? 'manual';
  if (mode === 'disabled') return out;
  let serverIds: string[];
  if (mode === 'auto') {
    serverIds = (await reader.listServers())
      .filter((definition) => definition.enabled)
      .map((definition) => definition.id);
  } else {
    serverIds = [...new Set(assistant.mcpServers ?? [])];
  }
  if (serverIds.length === 0) return out;
  const disabledForAssistant = new Set(assistant.disabledTools ?? []);
  const reads = await reader.readMany(serverIds);
  for (const read of reads.values()) {
    if (read.state !== 'ready' || !read.definition?.enabled) continue;
    const ids = offeredToolIds(read.serverId, read.tools, read.definition);
    if (disabledForAssistant.size === 0) for (const id of ids) out.add(id);
    else for (const id of ids) if (!disabledForAssistant.has(id)) out.add(id);
  }
  return out;
}
