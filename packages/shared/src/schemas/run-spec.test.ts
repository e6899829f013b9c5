import { describe, expect, it } from 'vitest';
import { MODEL_PROVIDERS } from './model-providers.js';
import {
  createRunSpecSchema,
  defaultRunSpecLimits,
  MAX_APPROVAL_TIMEOUT_MS,
  modelIdSchema,
  runSpecLimitsOf,
  runSpecSchema,
} from './run-spec.js';

const minimal = { assistant: { model: 'openai:gpt-4o-mini' }, input: { prompt: 'Hello' } };

function firstIssue(value: unknown) {
  const parsed = runSpecSchema.safeParse(value);
  if (parsed.success) throw new Error('expected the run spec to be rejected');
  return parsed.error.issues[0]!;
}

describe('runSpecSchema', () => {
  it('fills defaults for a minimal spec', () => {
    expect(runSpecSchema.parse(minimal)).toEqual({
      assistant: {
        model: 'openai:gpt-4o-mini',
        settings: {},
        mcpMode: 'manual',
        mcpServers: [],
        disabledTools: [],
        maxSteps: 10,
      },
      input: { prompt: 'Hello' },
      approval: { requireFor: [] },
      metadata: {},
    });
  });

  it('gives every spec its own default objects, never one shared between parses', () => {
    const first = runSpecSchema.parse(minimal);
    const second = runSpecSchema.parse(minimal);
    expect(second.approval.requireFor).not.toBe(first.approval.requireFor);
    expect(second.assistant.mcpServers).not.toBe(first.assistant.mcpServers);
    expect(second.metadata).not.toBe(first.metadata);
  });

  it('accepts a full spec with messages, tools, approval policy and metadata', () => {
    const spec = runSpecSchema.parse({
      assistant: {
        model: 'anthropic:claude-sonnet-4',
        system: 'Be brief.',
        settings: { temperature: 0.2, maxOutputTokens: 500 },
        mcpMode: 'auto',
        mcpServers: ['github'],
        disabledTools: ['github:delete_repo'],
        contextWindow: 200_000,
        maxSteps: 20,
      },
      input: { messages: [{ role: 'user', content: 'hi' }] },
      tools: ['github:list_issues'],
      approval: { requireFor: ['mcp__github__*'], timeoutMs: 60_000 },
      metadata: { tenant: 'acme', priority: 2, urgent: true, note: null },
    });
    expect(spec.approval).toEqual({ requireFor: ['mcp__github__*'], timeoutMs: 60_000 });
    expect(spec.tools).toEqual(['github:list_issues']);
  });

  it('rejects a typo at the top level and inside the assistant', () => {
    const top = firstIssue({ ...minimal, tool: ['github:x'] });
    expect(top.code).toBe('unrecognized_keys');
    expect(top.message).toContain('tool');
    const nested = firstIssue({ ...minimal, assistant: { model: 'openai:gpt-4o-mini', maxStep: 3 } });
    expect(nested.code).toBe('unrecognized_keys');
    expect(nested.path).toEqual(['assistant']);
    expect(nested.message).toContain('maxStep');
    expect(firstIssue({ ...minimal, approval: { requirefor: ['x'] } }).path).toEqual(['approval']);
  });

  it('rejects a bad model id, tool id, step limit and metadata value, naming the field', () => {
    expect(firstIssue({ ...minimal, assistant: { model: 'gpt-4o' } }).path).toEqual(['assistant', 'model']);
    expect(firstIssue({ ...minimal, tools: ['no-colon'] }).path).toEqual(['tools', 0]);
    expect(firstIssue({ ...minimal, assistant: { model: 'openai:x', maxSteps: 0 } }).path).toEqual([
      'assistant',
      'maxSteps',
    ]);
    expect(firstIssue({ ...minimal, assistant: { model: 'openai:x', settings: { temperature: 3 } } }).path).toEqual([
      'assistant',
      'settings',
      'temperature',
    ]);
    expect(firstIssue({ ...minimal, metadata: { nested: { a: 1 } } }).path).toEqual(['metadata', 'nested']);
  });

  it('needs exactly one non-empty input form', () => {
    expect(runSpecSchema.safeParse({ ...minimal, input: { prompt: '' } }).success).toBe(false);
    expect(runSpecSchema.safeParse({ ...minimal, input: { messages: [] } }).success).toBe(false);
    expect(
      runSpecSchema.safeParse({ ...minimal, input: { prompt: 'a', messages: [{ role: 'user', content: 'b' }] } })
        .success,
    ).toBe(false);
    expect(
      runSpecSchema.safeParse({ ...minimal, input: { messages: [{ role: 'robot', content: 'b' }] } }).success,
    ).toBe(false);
  });

  it('refuses input messages that end with an assistant message', () => {
    const user = { role: 'user', content: 'Deploy it' };
    const call = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'c1', toolName: 'mcp__ops__deploy', input: {} }],
    };
    for (const last of [call, { role: 'assistant', content: 'Done.' }]) {
      const issue = firstIssue({ ...minimal, input: { messages: [user, last] } });
      expect(issue.path).toEqual(['input', 'messages', 1, 'role']);
      expect(issue.message).toMatch(/last input message may not be an assistant message/);
    }
    const answered = {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'mcp__ops__deploy', output: { type: 'text', value: 'ok' } },
      ],
    };
    expect(runSpecSchema.safeParse({ ...minimal, input: { messages: [user, call, answered] } }).success).toBe(true);
  });

  it('bounds the approval timeout a run asks for', () => {
    const withTimeout = (timeoutMs: number) => ({ ...minimal, approval: { timeoutMs } });
    expect(runSpecSchema.safeParse(withTimeout(MAX_APPROVAL_TIMEOUT_MS)).success).toBe(true);
    const issue = firstIssue(withTimeout(Number.MAX_SAFE_INTEGER));
    expect(issue.path).toEqual(['approval', 'timeoutMs']);
    expect(issue.message).toMatch(/at most .* ms/);
  });

  it('needs a script for scripted models other than scripted:demo', () => {
    expect(runSpecSchema.safeParse({ ...minimal, assistant: { model: 'scripted:demo' } }).success).toBe(true);
    expect(firstIssue({ ...minimal, assistant: { model: 'scripted:custom' } }).path).toEqual(['assistant', 'script']);
    const scripted = runSpecSchema.parse({
      ...minimal,
      assistant: {
        model: 'scripted:custom',
        script: [{ toolCalls: [{ toolName: 'mcp__everything__echo' }] }, { text: 'done' }],
      },
    });
    expect(scripted.assistant.script).toEqual([
      { toolCalls: [{ toolName: 'mcp__everything__echo', input: {} }] },
      { text: 'done' },
    ]);
  });
});

describe('modelIdSchema', () => {
  it('takes every known provider with a printable name, and only those', () => {
    for (const provider of MODEL_PROVIDERS)
      expect(modelIdSchema.safeParse(`${provider}:some-model:8b`).success).toBe(true);
    for (const id of ['nosuch:model', 'gpt-4o', 'openai:', 'openai:a b', 'openai:a\tb', 'openai:a\u007f', ':model']) {
      const parsed = modelIdSchema.safeParse(id);
      expect(parsed.success, JSON.stringify(id)).toBe(false);
      expect(parsed.error?.issues, JSON.stringify(id)).toHaveLength(1);
    }
  });
});

describe('run spec limits', () => {
  const base = { assistant: { model: 'openai:gpt-4o-mini' }, input: { prompt: 'hi' } };
  const firstIssue = (result: {
    success: boolean;
    error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
  }) => result.error?.issues[0];

  it('measures the input as JSON bytes, with the system prompt and the script', () => {
    const schema = createRunSpecSchema({ maxInputBytes: 100 });
    expect(schema.safeParse({ ...base, input: { prompt: 'x'.repeat(98) } }).success).toBe(true);
    const over = firstIssue(schema.safeParse({ ...base, input: { prompt: 'x'.repeat(99) } }));
    expect(over?.path).toEqual(['input', 'prompt']);
    expect(over?.message).toContain('101');
    expect(over?.message).toContain('100');
    // Multi-byte characters count in bytes.
    expect(schema.safeParse({ ...base, input: { prompt: 'é'.repeat(50) } }).success).toBe(false);
    const together = firstIssue(
      schema.safeParse({
        assistant: { model: 'openai:gpt-4o-mini', system: 'y'.repeat(60) },
        input: { prompt: 'x'.repeat(60) },
      }),
    );
    expect(together?.path).toEqual(['input']);
  });

  it('keeps the defaults for limits left out, and in runSpecSchema', () => {
    const servers = (count: number) => ({
      ...base,
      assistant: { ...base.assistant, mcpServers: Array.from({ length: count }, (_, index) => `s${index}`) },
    });
    expect(runSpecSchema.safeParse(servers(defaultRunSpecLimits.maxMcpServers)).success).toBe(true);
    expect(firstIssue(runSpecSchema.safeParse(servers(defaultRunSpecLimits.maxMcpServers + 1)))?.path).toEqual([
      'assistant',
      'mcpServers',
    ]);
    const raised = createRunSpecSchema({ maxMcpServers: 1000, maxInputBytes: undefined });
    expect(raised.safeParse(servers(1000)).success).toBe(true);
    expect(
      raised.safeParse({ ...base, input: { prompt: 'x'.repeat(defaultRunSpecLimits.maxInputBytes) } }).success,
    ).toBe(false);
  });

  it('reads the configured limits', () => {
    expect(runSpecLimitsOf({ maxInputBytes: 1, maxMcpServers: 2 })).toEqual({ maxInputBytes: 1, maxMcpServers: 2 });
  });
});
