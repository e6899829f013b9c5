import { assignMcpWireNames, assignServerSegments } from '@agentq/registry';
import { tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { applyRunApprovalPolicy, matchesApprovalPattern } from './run-approval-policy.js';

describe('matchesApprovalPattern', () => {
  it('treats * as any run of characters and everything else literally', () => {
    expect(matchesApprovalPattern('mcp__github__*', 'mcp__github__createIssue')).toBe(true);
    expect(matchesApprovalPattern('mcp__github__*', 'mcp__gitlab__createIssue')).toBe(false);
    expect(matchesApprovalPattern('*', 'anything')).toBe(true);
    expect(matchesApprovalPattern('fs:write.file', 'fs:writeXfile')).toBe(false);
    expect(matchesApprovalPattern('fs:write.file', 'fs:write.file')).toBe(true);
  });
});

describe('applyRunApprovalPolicy', () => {
  const make = () => tool({ inputSchema: z.object({}), execute: async () => 'ok' });

  it('gates tools named by wire name or by tool id, leaving the others and the input untouched', () => {
    const tools: ToolSet = {
      mcp__fs__writeFile: make(),
      mcp__fs__readFile: make(),
      mcp__github__createIssue: make(),
    };
    const gated = applyRunApprovalPolicy(tools, {
      requireFor: ['fs:write_file', 'mcp__github__*'],
      toolIds: {
        mcp__fs__writeFile: 'fs:write_file',
        mcp__fs__readFile: 'fs:read_file',
        mcp__github__createIssue: 'github:create_issue',
      },
    });
    expect(gated.mcp__fs__writeFile?.needsApproval).toBe(true);
    expect(gated.mcp__github__createIssue?.needsApproval).toBe(true);
    expect(gated.mcp__fs__readFile?.needsApproval).toBeUndefined();
    expect(tools.mcp__fs__writeFile?.needsApproval).toBeUndefined();
  });

  /** The wire names the registry gives these tools when every one of them is in the store. */
  function wireNamesOf(pairs: Array<[string, string]>): Map<string, string> {
    const segments = assignServerSegments(pairs.map(([serverId]) => serverId));
    const names = assignMcpWireNames(
      pairs.map(([serverId, toolName]) => ({ serverId, toolName, segment: segments.get(serverId) })),
    );
    return new Map([...names].map(([id, wire]) => [wire, id]));
  }

  it('keeps gating a tool when a look-alike server or tool suffixes its wire name', () => {
    // `github-` shares the slug `github`, so both servers' tools get digest-suffixed segments; the
    // second tool of `github` camelCases like the first, so both get digest-suffixed names.
    const toolIdsByWireName = wireNamesOf([
      ['github', 'delete_repo'],
      ['github', 'list_issues'],
      ['github-', 'list_issues'],
      ['docs', 'remove_page'],
      ['docs', 'remove-page'],
    ]);
    const wireOf = (id: string) => [...toolIdsByWireName].find(([, toolId]) => toolId === id)?.[0] as string;
    expect(wireOf('github:delete_repo')).not.toBe('mcp__github__deleteRepo');
    expect(wireOf('docs:remove_page')).not.toBe('mcp__docs__removePage');
    const tools: ToolSet = Object.fromEntries([...toolIdsByWireName.keys()].map((wire) => [wire, make()]));
    const toolIds = Object.fromEntries(toolIdsByWireName);

    const byPrefix = applyRunApprovalPolicy(tools, { requireFor: ['mcp__github__*'], toolIds });
    expect(byPrefix[wireOf('github:delete_repo')]?.needsApproval).toBe(true);
    expect(byPrefix[wireOf('github:list_issues')]?.needsApproval).toBe(true);
    // The look-alike's own plain name matches the pattern too: gating added, never removed.
    expect(byPrefix[wireOf('github-:list_issues')]?.needsApproval).toBe(true);
    expect(byPrefix[wireOf('docs:remove_page')]?.needsApproval).toBeUndefined();

    const exact = applyRunApprovalPolicy(tools, {
      requireFor: ['mcp__github__deleteRepo', 'mcp__docs__removePage'],
      toolIds,
    });
    expect(exact[wireOf('github:delete_repo')]?.needsApproval).toBe(true);
    expect(exact[wireOf('github:list_issues')]?.needsApproval).toBeUndefined();
    // Both tools of `docs` camelCase to `removePage`: both are gated.
    expect(exact[wireOf('docs:remove_page')]?.needsApproval).toBe(true);
    expect(exact[wireOf('docs:remove-page')]?.needsApproval).toBe(true);
  });

  it('returns the same set when the run has no policy', () => {
    const tools: ToolSet = { a: make() };
    expect(applyRunApprovalPolicy(tools, { requireFor: [], toolIds: {} })).toBe(tools);
  });
});
