import type { ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { applyDeferExposition } from '../exposition/apply-defer-exposition.js';
import { createRunToolState } from '../exposition/run-tool-state.js';
import { ToolRegistry } from '../registry/tool-registry.js';
import { makeTool } from '../test-support/fixtures.js';
import { createToolExec, type ToolExecRequest, type ToolExecSandbox } from './create-tool-exec.js';

const options = { toolCallId: 'exec-1', messages: [] };

/** A stand-in sandbox: runs `steps` against the request's callTool, as a script would in order. */
function scripted(steps: (request: ToolExecRequest) => Promise<unknown>): ToolExecSandbox {
  return async (request) => {
    try {
      return { ok: true, value: await steps(request), logs: [], toolCalls: 0 };
    } catch (error) {
      return { ok: false, code: 'EXEC_SCRIPT_ERROR', message: (error as Error).message, logs: [], toolCalls: 0 };
    }
  };
}

describe('tool_exec', () => {
  it('refuses to run code without an explicit sandbox', async () => {
    const exec = createToolExec({ tools: {}, state: createRunToolState() });
    expect(await exec.execute?.({ code: '1+1' }, options)).toMatchObject({ ok: false, code: 'EXEC_DISABLED' });
  });

  it('code reaches only tools of the request, never a gated one, with ids in call order', async () => {
    const ran: { name: string; id: string }[] = [];
    const record = (name: string) => (_input: unknown, call: { toolCallId: string }) => {
      ran.push({ name, id: call.toolCallId });
      return { ran: name };
    };
    const tools: ToolSet = {
      allowed: makeTool({ execute: record('allowed') }),
      gated: makeTool({ needsApproval: true, execute: record('gated') }),
      outside: makeTool({ execute: record('outside') }),
    };
    const state = createRunToolState();
    state.allowedNames = ['allowed', 'gated'];
    const errors: string[] = [];
    const exec = createToolExec({
      tools,
      state,
      sandbox: scripted(async ({ callTool }) => {
        await callTool('allowed', { text: 'a' });
        for (const name of ['gated', 'outside']) {
          await callTool(name, {}).catch((error: Error) => errors.push(error.message));
        }
        return await callTool('allowed', { text: 'b' });
      }),
    });
    const result = await exec.execute?.({ code: 'irrelevant' }, options);
    expect(result).toMatchObject({ ok: true, result: { ran: 'allowed' } });
    expect(errors[0]).toMatch(/^TOOL_NEEDS_APPROVAL: .*Call gated directly/);
    expect(errors[1]).toMatch(/^TOOL_NOT_IN_REQUEST/);
    expect(ran).toEqual([
      { name: 'allowed', id: 'exec-1#1::allowed' },
      { name: 'allowed', id: 'exec-1#4::allowed' },
    ]);
  });

  it('refuses params that do not validate, with the signature', async () => {
    const tools: ToolSet = {
      strict: makeTool({
        schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      }),
    };
    const state = createRunToolState();
    state.allowedNames = ['strict'];
    const exec = createToolExec({ tools, state, sandbox: scripted(({ callTool }) => callTool('strict', { n: 'x' })) });
    const result = (await exec.execute?.({ code: 'x' }, options)) as { code: string; message: string };
    expect(result.code).toBe('EXEC_SCRIPT_ERROR');
    expect(result.message).toMatch(/^INVALID_PARAMS: [\s\S]*function strict\(params\)/);
  });

  it('lists the signatures of the tools code may call, without gated ones', () => {
    const tools: ToolSet = {
      readItems: makeTool({ description: 'Reads the items.' }),
      deleteAll: makeTool({ description: 'Deletes everything.', needsApproval: true }),
    };
    const state = createRunToolState();
    state.allowedNames = ['deleteAll', 'readItems'];
    const exec = createToolExec({ tools, state, sandbox: scripted(async () => null) });
    expect(exec.description).toContain('async function readItems(params)');
    expect(exec.description).toContain('Reads the items.');
    expect(exec.description).not.toContain('Deletes everything.');
  });

  it('is added by applyDeferExposition in code mode only', async () => {
    const tools: ToolSet = { one: makeTool() };
    const registry = new ToolRegistry({ indexed: false });
    const off = await applyDeferExposition(tools, registry, 100_000, { state: createRunToolState() });
    expect(Object.keys(off.tools)).toEqual(['one']);
    const on = await applyDeferExposition(tools, registry, 100_000, {
      state: createRunToolState(),
      codeMode: { sandbox: scripted(async () => null) },
    });
    expect(Object.keys(on.tools).sort()).toEqual(['one', 'tool_exec']);
    expect(on.inlineTokens).toBeGreaterThan(off.inlineTokens);
  });
});
