import { AgentqError, runSpecSchema } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import type { RunInfo } from '@agentq/client';
import { describeRun, runPageUrl, runSpecFromOptions } from './run-command.js';

const base = { timeout: 1000 };

describe('runSpecFromOptions', () => {
  it('builds a valid spec from a prompt, model and servers', () => {
    const spec = runSpecFromOptions(
      'hello',
      { ...base, model: 'openai:gpt-4o-mini', server: ['a', 'b'], maxSteps: 3 },
      {},
    );
    expect(runSpecSchema.parse(spec).assistant).toMatchObject({
      model: 'openai:gpt-4o-mini',
      mcpServers: ['a', 'b'],
      maxSteps: 3,
    });
  });

  it('gives the demo model its server when none is named', () => {
    const spec = runSpecFromOptions('hello', base, {});
    expect(spec.assistant).toMatchObject({ model: 'scripted:demo', mcpServers: ['everything'] });
  });

  it('uses AGENTQ_MODEL, then provider keys, for the default model', () => {
    expect(runSpecFromOptions('x', base, { AGENTQ_MODEL: 'anthropic:claude-x' }).assistant.model).toBe(
      'anthropic:claude-x',
    );
    expect(runSpecFromOptions('x', base, { OPENAI_API_KEY: 'sk-test' }).assistant.model).toMatch(/^openai:/);
  });

  it('needs a prompt unless --demo', () => {
    expect(() => runSpecFromOptions(undefined, base, {})).toThrow(AgentqError);
    expect(runSpecFromOptions(undefined, { ...base, demo: true }, {}).assistant.mcpServers).toEqual(['everything']);
  });
});

describe('describeRun (agentq status)', () => {
  const step = (index: number) => ({
    step: index,
    text: '',
    finishReason: 'tool-calls',
    toolCalls: [],
    usage: { inputTokens: 10, outputTokens: 2, totalTokens: 12 },
  });
  const completed: RunInfo = {
    runId: 'r1',
    state: 'completed',
    spec: undefined,
    // What a worker leaves behind: progress after each step but the last.
    progress: { step: 4, lastTool: 'echo', status: 'running' },
    attemptsMade: 1,
    createdAt: 1_000,
    startedAt: 30_000,
    finishedAt: 31_000,
    pendingApprovals: [],
    pendingElicitations: [],
    steps: [
      { step: 0, catalogVersion: { svc: 'v1', fs: 'f1' } },
      { step: 1, catalogVersion: { fs: 'f1', svc: 'v1' } },
      { step: 2, catalogVersion: { svc: 'v2', fs: 'f1' } },
    ],
    result: {
      runId: 'r1',
      text: 'done',
      finishReason: 'stop',
      steps: [0, 1, 2, 3, 4].map(step),
      toolCalls: [],
      usage: { inputTokens: 50, outputTokens: 10, totalTokens: 60 },
      warnings: [],
    } as unknown as RunInfo['result'],
  };

  it('counts a finished run from its result, with tokens, duration and page', () => {
    const lines = describeRun(completed, 'http://api.test/admin/runs/r1');
    expect(lines[1]).toMatch(/^ {2}5 steps · 0 tool calls · 60 tokens · took 30s$/);
    expect(lines).not.toContainEqual(expect.stringMatching(/step 4/));
    expect(lines).toContain('  page: http://api.test/admin/runs/r1');
  });

  it('lists the catalog versions each run of steps was shown', () => {
    const lines = describeRun(completed, 'p');
    const at = lines.indexOf('  catalog versions:');
    // Numbered from 1, as `agentq run --wait` numbers them.
    expect(lines.slice(at + 1, at + 3)).toEqual(['    steps 1-2: fs@f1 svc@v1', '    step 3: fs@f1 svc@v2']);
    expect(describeRun({ ...completed, steps: [] }, 'p')).not.toContain('  catalog versions:');
  });

  it('names the server of each approval a run waits on', () => {
    const parked: RunInfo = {
      ...completed,
      state: 'waiting-approval',
      result: undefined,
      finishedAt: undefined,
      pendingApprovals: [
        { approvalId: 'ap-1', toolCallId: 'c1', toolName: 'mcp__github__deleteRepo_28d0b033c8', serverId: 'github-' },
        { approvalId: 'ap-2', toolCallId: 'c2', toolName: 'web_fetch' },
      ],
    };
    const lines = describeRun(parked, 'p');
    expect(lines).toContain('  waiting for approval ap-1 (github-, mcp__github__deleteRepo_28d0b033c8)');
    expect(lines).toContain('  waiting for approval ap-2 (web_fetch)');
  });

  it('says an approval is decided, not waited for, once a decision is recorded', () => {
    const parked: RunInfo = {
      ...completed,
      state: 'waiting-approval',
      result: undefined,
      finishedAt: undefined,
      pendingApprovals: [
        {
          approvalId: 'ap-1',
          toolCallId: 'c1',
          toolName: 'web_fetch',
          decision: { approved: false, decidedBy: 'ops', decidedAt: 1, via: 'cli' },
        },
      ],
    };
    const lines = describeRun(parked, 'p');
    expect(lines).toContain('  approval ap-1 (web_fetch) denied by ops; the run resumes on a worker');
    expect(lines.join('\n')).not.toContain('waiting for approval');
  });

  it("shows each waiting call's arguments, and where to read them whole when cut", () => {
    const parked: RunInfo = {
      ...completed,
      state: 'waiting-approval',
      result: undefined,
      finishedAt: undefined,
      pendingApprovals: [
        { approvalId: 'ap-1', toolCallId: 'c1', toolName: 'web_fetch', input: { url: 'https://a.example' } },
        {
          approvalId: 'ap-2',
          toolCallId: 'c2',
          toolName: 'mcp__fx__counterIncrement',
          input: { note: 'weekly status for the team, harmless text', target: 'DELETE-EVERYTHING' },
        },
      ],
    };
    const lines = describeRun(parked, 'p', 'npm run agentq --');
    expect(lines).toContain('    arguments: {"url":"https://a.example"}');
    const at = lines.indexOf('  waiting for approval ap-2 (mcp__fx__counterIncrement)');
    expect(lines[at + 1]).toMatch(/^ {4}arguments: \{"note":"weekly.*…$/);
    expect(lines[at + 2]).toBe('    whole: npm run agentq -- approvals show ap-2');
    expect(lines.filter((line) => line.includes('approvals show'))).toHaveLength(1);
  });

  it('names the question a run waits on and how to answer it', () => {
    const parked: RunInfo = {
      ...completed,
      state: 'waiting-input',
      result: undefined,
      finishedAt: undefined,
      pendingElicitations: [
        {
          elicitationId: 'elic-r0-1',
          toolCallId: 'c1',
          toolName: 'mcp__deploy__deploy',
          serverId: 'deploy',
          message: 'Where should billing go?',
          requestedAt: 1,
          expiresAt: 2,
        },
      ],
    };
    const lines = describeRun(parked, 'p');
    expect(lines[0]).toBe('run r1: waiting-input');
    expect(lines.slice(-3)).toEqual([
      '  waiting for an answer to elic-r0-1 (deploy, mcp__deploy__deploy)',
      '    Where should billing go?',
      '    answer: agentq elicitations answer elic-r0-1',
    ]);
  });

  it('says how many steps a running run has finished', () => {
    const running: RunInfo = { ...completed, state: 'active', result: undefined, finishedAt: undefined };
    expect(describeRun(running, 'p')[1]).toMatch(/^ {2}4 steps done · last tool echo · .* so far$/);
  });

  it('links the run page at AGENTQ_API_URL, else at the listen address', () => {
    expect(runPageUrl({ apiUrl: 'https://ops.example/agentq', apiHost: '0.0.0.0', apiPort: 1 }, 'a b')).toBe(
      'https://ops.example/agentq/admin/runs/a%20b',
    );
    expect(runPageUrl({ apiUrl: undefined, apiHost: '0.0.0.0', apiPort: 3000 }, 'r')).toBe(
      'http://127.0.0.1:3000/admin/runs/r',
    );
  });
});
