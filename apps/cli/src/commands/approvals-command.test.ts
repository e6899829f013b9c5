import type { ApprovalInfo, PendingApprovalInfo } from '@agentq/client';
import { describe, expect, it } from 'vitest';
import { formatApprovalRecord, formatPendingApprovals } from './approvals-command.js';

const request = (extra: Partial<PendingApprovalInfo>): PendingApprovalInfo => ({
  approvalId: 'ap-1',
  runId: 'r1',
  toolCallId: 'c1',
  toolName: 'mcp__github__deleteRepo_28d0b033c8',
  input: { repo: 'x' },
  argsDigest: 'a',
  schemaDigest: 's',
  requestedAt: 0,
  expiresAt: 60_000,
  ...extra,
});

describe('agentq approvals', () => {
  it('lists the server of each gated call, so look-alike wire names are told apart', () => {
    const table = formatPendingApprovals([
      request({ approvalId: 'ap-1', serverId: 'github' }),
      request({ approvalId: 'ap-2', serverId: 'github-' }),
      request({ approvalId: 'ap-3', toolName: 'web_fetch' }),
    ]).split('\n');
    expect(table[0]).toMatch(/^APPROVAL\s+RUN\s+SERVER\s+TOOL\s+EXPIRES\s+ARGUMENTS$/);
    expect(table[1]).toMatch(/^ap-1\s+r1\s+github\s+mcp__github__deleteRepo_28d0b033c8\s/);
    expect(table[2]).toMatch(/^ap-2\s+r1\s+github-\s+mcp__github__deleteRepo_28d0b033c8\s/);
    expect(table[3]).toMatch(/^ap-3\s+r1\s+\(builtin\)\s+web_fetch\s/);
  });

  it('shows the server in the detail of one approval, decided or not', () => {
    const pending: ApprovalInfo = { request: request({ serverId: 'github-' }), decision: null, outcome: null };
    expect(formatApprovalRecord(pending)).toEqual([
      'Approval ap-1 · run r1 · server github- · tool mcp__github__deleteRepo_28d0b033c8',
      'Requested 1970-01-01T00:00:00.000Z, expires 1970-01-01T00:01:00.000Z',
      'Arguments:',
      '  {',
      '    "repo": "x"',
      '  }',
      'Not decided yet.',
    ]);
    const decided: ApprovalInfo = {
      request: request({ toolName: 'web_fetch' }),
      decision: { approved: false, decidedBy: 'ops', decidedAt: 30_000, via: 'cli', reason: 'no' },
      outcome: null,
    };
    expect(formatApprovalRecord(decided)).toEqual([
      'Approval ap-1 · run r1 · server (builtin) · tool web_fetch',
      'Requested 1970-01-01T00:00:00.000Z, expires 1970-01-01T00:01:00.000Z',
      'Arguments:',
      '  {',
      '    "repo": "x"',
      '  }',
      'Denied by ops via cli at 1970-01-01T00:00:30.000Z: no',
    ]);
  });

  it('marks cut arguments in the list and says where to read them whole; the detail shows them all', () => {
    const input = { note: 'weekly status for the team, harmless text', target: 'DELETE-EVERYTHING' };
    const table = formatPendingApprovals([request({ input }), request({ approvalId: 'ap-2' })]).split('\n');
    expect(table[1]).toMatch(/\{"note":"weekly status[^…]*…$/);
    expect(table[1]).not.toContain('DELETE-EVERYTHING');
    expect(table[2]).toMatch(/\{"repo":"x"\}$/);
    expect(table[3]).toContain('agentq approvals show <id>');
    expect(formatPendingApprovals([request({})])).not.toContain('approvals show');
    const shown = formatApprovalRecord({ request: request({ input }), decision: null, outcome: null }).join('\n');
    expect(shown).toContain('"target": "DELETE-EVERYTHING"');
    expect(shown).toContain('"note": "weekly status for the team, harmless text"');
  });
});
