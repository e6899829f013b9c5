import type { RunInfo, RunTimeline, RunTimelineCall } from '@agentq/client';
import { describe, expect, it } from 'vitest';
import { runPage } from './run-pages.js';

const usage = { inputTokens: 1_200, outputTokens: 30, totalTokens: 1_230 };

function pageWith(calls: RunTimelineCall[], runUsage: RunTimeline['usage'] = usage): string {
  const run = {
    runId: 'r1',
    state: 'completed',
    progress: {},
    attemptsMade: 1,
    createdAt: 1_000,
    finishedAt: 2_000,
    pendingApprovals: [],
    pendingElicitations: [],
  } as unknown as RunInfo;
  const timeline: RunTimeline = {
    run,
    steps: [{ step: 0, text: '', finishReason: 'tool-calls', usage, calls }],
    inProgress: [],
    usage: runUsage,
    catalogVersion: {},
    warnings: [],
  };
  return runPage({ timeline, csrf: 'token' });
}

const call = (extra: Partial<RunTimelineCall> & Pick<RunTimelineCall, 'toolName'>): RunTimelineCall => ({
  toolCallId: `id-${extra.toolName}`,
  input: {},
  status: 'ok',
  inner: [],
  ...extra,
});

describe('runPage', () => {
  it('shows the question a run waits on, escaped, with the ways to answer it', () => {
    const html = pageWith([]);
    expect(html).not.toContain('pending-questions');
    const timeline: RunTimeline = {
      run: {
        runId: 'r1',
        state: 'waiting-input',
        progress: {},
        attemptsMade: 1,
        createdAt: 1_000,
        pendingApprovals: [],
        pendingElicitations: [
          {
            elicitationId: 'elic-r0-1',
            toolCallId: 'c1',
            toolName: 'mcp__deploy__deploy',
            serverId: 'deploy',
            message: 'Deploy <b>billing</b> where?',
            requestedAt: 1_000,
            expiresAt: 90_000,
          },
        ],
      } as unknown as RunInfo,
      steps: [],
      inProgress: [],
      usage,
      catalogVersion: {},
      warnings: [],
    };
    const page = runPage({ timeline, csrf: 'token' });
    expect(page).toContain('id="run-state">waiting-input<');
    const section = page.slice(page.indexOf('id="pending-questions"'));
    expect(section).toContain('data-elicitation-id="elic-r0-1"');
    expect(section).toContain('Deploy &lt;b&gt;billing&lt;/b&gt; where?');
    expect(section).toContain('<code>agentq elicitations answer elic-r0-1</code>');
    expect(section).toContain('<code>POST /v1/elicitations/elic-r0-1/answer</code>');
    expect(section).toContain('href="/admin/approvals"');
  });

  it('names the MCP server a pending approval goes to, so look-alike wire names cannot mislead', () => {
    const request = {
      approvalId: 'ap-1',
      runId: 'r1',
      toolCallId: 'c1',
      toolName: 'mcp__github__deleteRepo_28d0b033c8',
      serverId: 'github-',
      input: {},
      argsDigest: 'a',
      schemaDigest: 's',
      requestedAt: 1_000,
      expiresAt: 90_000,
    };
    const html = pageWith([
      call({
        toolName: request.toolName,
        status: 'awaiting-approval',
        approval: { request, decision: null, outcome: null },
      }),
    ]);
    expect(html).toContain('Waiting for a decision on MCP server <code class="server">github-</code> since');
    const builtin = pageWith([
      call({
        toolName: 'web_fetch',
        status: 'awaiting-approval',
        approval: {
          request: { ...request, serverId: undefined, toolName: 'web_fetch' },
          decision: null,
          outcome: null,
        },
      }),
    ]);
    expect(builtin).toContain('Waiting for a decision (a builtin tool) since');
  });

  it('shows a native search like a tool_search call: its query and the tools it found, escaped', () => {
    const html = pageWith([
      call({
        toolName: 'tool_search',
        input: { query: 'add numbers' },
        output: { results: [{ name: 'mcp__a__sum' }] },
        durationMs: 5,
      }),
      call({
        toolName: 'provider_tool_search',
        input: { query: '<script>x</script>' },
        output: [{ type: 'tool_reference', toolName: 'mcp__big__tool0007' }],
      }),
    ]);
    const item = (tool: string) =>
      html.slice(html.indexOf(`data-tool="${tool}"`), html.indexOf('</li>', html.indexOf(`data-tool="${tool}"`)));
    expect(item('tool_search')).toContain('<q class="search-query">add numbers</q>');
    expect(item('tool_search')).toContain('data-found="1">1 found: <code>mcp__a__sum</code>');
    expect(item('tool_search')).toContain('class="duration"');
    const native = item('provider_tool_search');
    expect(native).toContain('<q class="search-query">&lt;script&gt;x&lt;/script&gt;</q>');
    expect(native).toContain('1 found: <code>mcp__big__tool0007</code>');
    expect(html).not.toContain('<script>x</script>');
  });

  it('shows the prompt cache tokens beside the run tokens when the provider reported them', () => {
    expect(pageWith([])).toContain('<td id="run-tokens">1230 (1200 in, 30 out)</td>');
    const cached = pageWith([], { ...usage, cacheReadInputTokens: 900, cacheCreationInputTokens: 250 });
    expect(cached).toContain('<td id="run-tokens">1230 (1200 in, 30 out; cache: 900 read, 250 written)</td>');
  });
});
