import type { RunInfo, RunTimeline, RunTimelineCall } from '@agentq/client';
import { describe, expect, it } from 'vitest';
import { createProgressPrinter } from './progress-printer.js';

const usage = { inputTokens: 1, outputTokens: 1, totalTokens: 2 };

function call(toolCallId: string, toolName: string, extra: Partial<RunTimelineCall> = {}): RunTimelineCall {
  return { toolCallId, toolName, input: {}, status: 'ok', inner: [], ...extra };
}

function timeline(state: RunInfo['state'], steps: RunTimeline['steps'], inProgress: RunTimelineCall[] = []) {
  const run = {
    runId: 'r1',
    state,
    progress: {},
    attemptsMade: 0,
    createdAt: 0,
    pendingApprovals: [],
    pendingElicitations: [],
  } as unknown as RunInfo;
  return { run, steps, inProgress, usage, catalogVersion: {}, warnings: [] } satisfies RunTimeline;
}

describe('createProgressPrinter', () => {
  it('prints each step once and nests the calls tool_invoke made', () => {
    const lines: string[] = [];
    const printer = createProgressPrinter({ out: (line) => lines.push(line), agentq: 'npx agentq' });
    const search = call('c1', 'tool_search');
    const invoke = call('c2', 'tool_invoke', {
      durationMs: 12,
      inner: [call('c2::mcp__everything__getSum', 'mcp__everything__getSum', { durationMs: 9 })],
    });
    printer.show(timeline('active', [], [call('c1', 'tool_search', { status: 'running' })]));
    printer.show(timeline('active', [{ step: 0, text: '', finishReason: 'tool-calls', usage, calls: [search] }]));
    printer.show(
      timeline('active', [{ step: 0, text: '', finishReason: 'tool-calls', usage, calls: [search] }], [invoke]),
    );
    printer.show(
      timeline('completed', [
        { step: 0, text: '', finishReason: 'tool-calls', usage, calls: [search] },
        { step: 1, text: '', finishReason: 'tool-calls', usage, calls: [invoke] },
        { step: 2, text: 'All done.', finishReason: 'stop', usage, calls: [] },
      ]),
    );
    expect(lines).toEqual([
      '  step 1',
      '    tool_search',
      '  step 2',
      '    tool_invoke (12 ms)',
      '      mcp__everything__getSum (9 ms)',
      '  step 3: All done.',
      '  completed',
    ]);
  });

  it('shows what a search asked and found, the meta tool_search and the provider search alike', () => {
    const lines: string[] = [];
    const printer = createProgressPrinter({ out: (line) => lines.push(line), agentq: 'npx agentq' });
    const meta = call('c1', 'tool_search', {
      input: { query: 'add numbers' },
      output: { results: [{ name: 'mcp__a__sum' }, { name: 'mcp__a__add' }] },
      durationMs: 4,
    });
    const native = call('c2', 'provider_tool_search', {
      input: { query: 'records' },
      output: [{ type: 'tool_reference', toolName: 'mcp__big__tool0007' }],
    });
    const openai = call('c3', 'provider_tool_search', {
      input: { arguments: { query: 'nothing here' } },
      output: { tools: [] },
    });
    printer.show(
      timeline('completed', [{ step: 0, text: '', finishReason: 'tool-calls', usage, calls: [meta, native, openai] }]),
    );
    expect(lines).toEqual([
      '  step 1',
      '    tool_search "add numbers" → 2 found: mcp__a__sum, mcp__a__add (4 ms)',
      '    provider_tool_search "records" → 1 found: mcp__big__tool0007',
      '    provider_tool_search "nothing here" → 0 found',
      '  completed',
    ]);
  });

  it('announces a pending approval once, with the command that works here', () => {
    const lines: string[] = [];
    const printer = createProgressPrinter({ out: (line) => lines.push(line), agentq: 'npm run agentq --' });
    const parked = timeline('waiting-approval', [
      {
        step: 0,
        text: '',
        finishReason: 'tool-calls',
        usage,
        calls: [call('c1', 'mcp__x__echo', { status: 'awaiting-approval' })],
      },
    ]);
    parked.run.pendingApprovals = [
      { approvalId: 'appr-1', toolCallId: 'c1', toolName: 'mcp__x__echo', serverId: 'x', input: { a: 1 } },
    ];
    printer.show(parked);
    printer.show(parked);
    expect(lines).toEqual([
      '  step 1',
      '    mcp__x__echo · awaiting approval',
      '  waiting for approval',
      '    mcp__x__echo (server x) {"a":1}',
      '    approve: npm run agentq -- approvals approve appr-1',
      '    deny:    npm run agentq -- approvals deny appr-1 --reason "..."',
    ]);
  });

  it('says a run parked on a question waits for an answer, not for approval, and how to answer', () => {
    const lines: string[] = [];
    const printer = createProgressPrinter({ out: (line) => lines.push(line), agentq: 'npx agentq' });
    const parked = timeline('waiting-input', [], [call('c1', 'mcp__deploy__deploy', { status: 'running' })]);
    parked.run.pendingElicitations = [
      {
        elicitationId: 'elic-1',
        toolCallId: 'c1',
        toolName: 'mcp__deploy__deploy',
        serverId: 'deploy',
        message: 'Where should billing go?',
        requestedAt: 1,
        expiresAt: 2,
      },
    ];
    printer.show(parked);
    printer.show(parked);
    expect(lines).toEqual([
      '  step 1',
      '    mcp__deploy__deploy',
      '  waiting for an answer to a question from an MCP server',
      '    deploy asks (mcp__deploy__deploy): Where should billing go?',
      '    answer: npx agentq elicitations answer elic-1',
    ]);
    expect(lines.join('\n')).not.toContain('approval');
  });
});
