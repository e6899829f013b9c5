import { AgentqError, runSpecSchema } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { runSpecFromOptions } from './run-command.js';

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
