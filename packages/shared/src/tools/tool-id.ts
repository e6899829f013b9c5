/** The id of an MCP tool across agentq: `<serverId>:<toolName>`. */
export function toolId(serverId: string, toolName: string): string {
  return `${serverId}:${toolName}`;
}

/** Splits a tool id at its first `:`; `null` when it has none. */
export function parseToolId(id: string): { serverId: string; toolName: string } | null {
  const at = id.indexOf(':');
  if (at <= 0 || at === id.length - 1) return null;
  return { serverId: id.slice(0, at), toolName: id.slice(at + 1) };
}
