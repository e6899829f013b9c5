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

  it('returns the same set when the run has no policy', () => {
    const tools: ToolSet = { a: make() };
    expect(applyRunApprovalPolicy(tools, { requireFor: [], toolIds: {} })).toBe(tools);
  });
});
