import { mcpWireName } from '@agentq/registry';
import { matchGlob, parseToolId } from '@agentq/shared';
import type { ToolSet } from 'ai';

/**
 * Whether `name` matches an `approval.requireFor` pattern: `*` stands for any run of characters,
 * everything else is literal. Linear in the pattern and the name (see `matchGlob`): a pattern
 * comes from a run spec, so it must not be able to stall the worker.
 */
export function matchesApprovalPattern(pattern: string, name: string): boolean {
  return matchGlob(pattern, name);
}

/** Options of {@link applyRunApprovalPolicy}. */
export interface ApplyRunApprovalPolicyOptions {
  /** The run's `approval.requireFor` patterns. */
  requireFor: readonly string[];
  /** MCP tool id (`serverId:toolName`) by wire name, so patterns may name either. */
  toolIds: Readonly<Record<string, string>>;
}

/**
 * Returns `tools` with `needsApproval: true` on every tool a `requireFor` pattern names, by wire
 * name, by `serverId:toolName` id, or by the tool's own plain wire name
 * (`mcp__<camel(server)>__<camel(tool)>`). The wire name a run sees depends on the other servers
 * and tools in the store (a look-alike server id such as `github-` suffixes both servers'
 * segments; two tools of one server that camelCase alike are both suffixed), so a pattern written
 * against the plain name would stop matching the moment someone adds a look-alike. The plain name
 * depends on the tool's own id only, so such an addition can add gating but never remove it.
 * Tools that already need approval (an MCP server's `alwaysAsk`) keep it. The result is a new set;
 * registry entries are never changed, because the policy belongs to this run only.
 */
export function applyRunApprovalPolicy(tools: ToolSet, options: ApplyRunApprovalPolicyOptions): ToolSet {
  if (options.requireFor.length === 0) return tools;
  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const names = [name];
    const id = Object.hasOwn(options.toolIds, name) ? options.toolIds[name] : undefined;
    if (id !== undefined) {
      names.push(id);
      const parsed = parseToolId(id);
      if (parsed) names.push(mcpWireName(parsed.serverId, parsed.toolName));
    }
    const gated = options.requireFor.some((pattern) =>
      names.some((candidate) => matchesApprovalPattern(pattern, candidate)),
    );
    out[name] = gated ? { ...tool, needsApproval: true } : tool;
  }
  return out;
}
