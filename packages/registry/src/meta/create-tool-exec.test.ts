import type { ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { createRunToolState } from '../exposition/run-tool-state.js';
import { makeTool } from '../test-support/fixtures.js';
import { createToolExec, type ToolExecApi } from './create-tool-exec.js';

const options = { toolCallId: 'exec-1', messages: [] };

describe('tool_exec', () => {
  it('refuses to run code without an explicit sandbox', async () => {
    const exec = createToolExec({ tools: {}, state: createRunToolState() });
    expect(await exec.execute?.({ code: '1+1' }, options)).toMatchObject({ refused: true, code: 'EXEC_DISABLED' });
  });

  it('code reaches only tools of the request, and never a gated one', async () => {
    const ran: string[] = [];
    const tools: ToolSet = {
      allowed: makeTool({ execute: () => ran.push('allowed') }),
      gated: makeTool({ needsApproval: true, execute: () => ran.push('gated') }),
      outside: makeTool({ execute: () => ran.push('outside') }),
    };
    const state = createRunToolState();
    state.allowedNames = ['allowed', 'gated'];
    const outcomes: unknown[] = [];
    const exec = createToolExec({
      tools,
      state,
      sandbox: async ({ api }: { api: ToolExecApi }) => {
        outcomes.push(await api.callTool('gated', {}));
        outcomes.push(await api.callTool('outside', {}));
        outcomes.push(await api.callTool('allowed', { text: 'hi' }));
        return outcomes;
      },
    });
    await exec.execute?.({ code: 'irrelevant' }, options);
    expect(outcomes[0]).toMatchObject({ code: 'TOOL_NEEDS_APPROVAL' });
    expect(outcomes[1]).toMatchObject({ code: 'TOOL_NOT_IN_REQUEST' });
    expect(ran).toEqual(['allowed']);
  });
});
