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

  it('shows the whole arguments, their bidi and zero-width characters as escapes', () => {
    const input = {
      note: 'report for \u202Etxt.exe\u202C',
      path: 'notes/\u202Egnp.exe',
      later: `${'x'.repeat(80)}\u200b!`,
    };
    const html = inboxPage({
      approvals: [{ ...approval('ap-1', 'fx'), input }] as PendingApprovalInfo[],
      elicitations: '',
      csrf: 'token',
      who: 'default',
    });
    expect(html).not.toMatch(/[\u202a-\u202e\u200b]/);
    expect(html).toContain('&quot;path&quot;: &quot;notes/\\u202egnp.exe&quot;');
    expect(html).toContain('&quot;note&quot;: &quot;report for \\u202etxt.exe\\u202c&quot;');
    expect(html).toContain(`&quot;later&quot;: &quot;${'x'.repeat(80)}\\u200b!&quot;`);
  });
});
