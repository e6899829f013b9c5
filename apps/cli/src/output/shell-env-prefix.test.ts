import { loadConfig } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { describeRun } from '../commands/run-command.js';
import { suggestedAgentq } from './shell-env-prefix.js';

describe('suggestedAgentq', () => {
  it('carries REDIS_URL, AGENTQ_PREFIX and AGENTQ_API_URL only when they are not the defaults', () => {
    const env = { npm_lifecycle_event: 'agentq', PATH: '' };
    expect(suggestedAgentq(loadConfig({}), env)).toBe('npm run agentq --');
    expect(
      suggestedAgentq(
        loadConfig({ REDIS_URL: 'redis://:secret@127.0.0.1:41234', AGENTQ_PREFIX: 'mine', AGENTQ_API_PORT: '4000' }),
        env,
      ),
    ).toBe(
      'AGENTQ_API_URL=http://127.0.0.1:4000 REDIS_URL=redis://:***@127.0.0.1:41234 AGENTQ_PREFIX=mine npm run agentq --',
    );
    expect(suggestedAgentq(loadConfig({ AGENTQ_API_URL: 'https://agentq.example' }), env)).toBe(
      'AGENTQ_API_URL=https://agentq.example npm run agentq --',
    );
  });

  it('is what `agentq status` suggests for answering a question', () => {
    const agentq = suggestedAgentq(loadConfig({ AGENTQ_PREFIX: 'mine' }), { PATH: '' });
    const lines = describeRun(
      {
        runId: 'r1',
        state: 'waiting-input',
        progress: {},
        steps: [],
        pendingApprovals: [],
        pendingElicitations: [
          { elicitationId: 'e1', serverId: 'svc', toolName: 'ask', message: 'Which one?', expiresAt: 0 },
        ],
      } as unknown as Parameters<typeof describeRun>[0],
      'p',
      agentq,
    );
    expect(lines).toContain('    answer: AGENTQ_PREFIX=mine npx agentq elicitations answer e1');
  });
});
