import type { PendingApprovalInfo } from '@agentq/client';
import { describe, expect, it } from 'vitest';
import { inboxPage } from './admin-routes.js';

// The fields the inbox shows; digests and the call id play no part in it.
function approval(approvalId: string, serverId?: string, toolName = 'mcp__github__deleteRepo_28d0b033c8') {
  return { approvalId, runId: 'r1', toolName, serverId, input: { repo: 'x' }, requestedAt: 1_000, expiresAt: 90_000 };
}

describe('inboxPage', () => {
  it('shows the MCP server of each gated call beside its wire name, escaped', () => {
    const html = inboxPage({
      approvals: [
        approval('ap-1', 'github'),
        approval('ap-2', 'github-'),
        approval('ap-3', '<b>x</b>'),
        approval('ap-4', undefined, 'web_fetch'),
      ] as PendingApprovalInfo[],
      elicitations: '',
      csrf: 'token',
      who: 'default',
    });
    expect(html).toContain('<th>Run</th><th>Server</th><th>Tool</th>');
    const row = (id: string) => {
      const start = html.indexOf(`data-approval-id="${id}"`);
      return html.slice(start, html.indexOf('</tr>', start));
    };
    expect(row('ap-1')).toContain('<td class="server"><code>github</code></td>');
    expect(row('ap-2')).toContain('<td class="server"><code>github-</code></td>');
    expect(row('ap-3')).toContain('<td class="server"><code>&lt;b&gt;x&lt;/b&gt;</code></td>');
    expect(row('ap-4')).toContain('<td class="server"><em>builtin</em></td>');
  });
});
