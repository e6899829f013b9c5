import { matchGlob } from '@agentq/shared';
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
 * name or by `serverId:toolName` id. Tools that already need approval (an MCP server's
 * `alwaysAsk`) keep it. The result is a new set; registry entries are never changed, because the
 * policy belongs to this run only.
 */
export function applyRunApprovalPolicy(tools: ToolSet, options: ApplyRunApprovalPolicyOptions): ToolSet {
  if (options.requireFor.length === 0) return tools;
  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    const id = Object.hasOwn(options.toolIds, name) ? options.toolIds[name] : undefined;
    const gated = options.requireFor.some(
      (pattern) => matchesApprovalPattern(pattern, name) || (id !== undefined && matchesApprovalPattern(pattern, id)),
    );
    out[name] = gated ? { ...tool, needsApproval: true } : tool;
  }
  return out;
}
