import { afterAll, describe, expect, it } from 'vitest';
import { createCodeSandbox } from './create-code-sandbox.js';
import type { ScriptHost } from './run-script.js';

const sandbox = createCodeSandbox({ limits: { timeoutMs: 5_000 } });
afterAll(() => sandbox.close());

function recordingHost(): ScriptHost & { calls: { name: string; args: unknown }[] } {
  const calls: { name: string; args: unknown }[] = [];
  return {
    calls,
    toolNames: ['list_items', 'act'],
    callTool: async (name, args) => {
      calls.push({ name, args });
      if (name === 'list_items') return Array.from({ length: 5 }, (_, id) => ({ id }));
      return { done: args };
    },
  };
}

describe('createCodeSandbox', () => {
  it('runs a script that calls tools in order and returns its value', async () => {
    const host = recordingHost();
    const outcome = await sandbox.run({
      host,
      code: `const items = await tools.list_items({});
        const out = [];
        for (const item of items) if (item.id % 2) out.push(await tools.act({ id: item.id }));
        console.log('seen', items.length);
        return out;`,
    });
    expect(outcome).toMatchObject({ ok: true, value: [{ done: { id: 1 } }, { done: { id: 3 } }], logs: ['seen 5'] });
    expect(host.calls.map((call) => call.name)).toEqual(['list_items', 'act', 'act']);
  });

  it('serves calls made together one at a time, in the order the script made them', async () => {
    const host = recordingHost();
    const outcome = await sandbox.run({
      host,
      code: `return await Promise.all([tools.act({ n: 1 }), tools.act({ n: 2 }), tools.act({ n: 3 })]);`,
    });
    expect(outcome.ok).toBe(true);
    expect(host.calls.map((call) => call.args)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  });

  it('hands a failing tool call to the script as a rejection it can catch', async () => {
    const host: ScriptHost = {
      toolNames: ['broken'],
      callTool: async () => {
        throw new Error('the server said no');
      },
    };
    const outcome = await sandbox.run({
      host,
      code: `try { await tools.broken({}); } catch (error) { return String(error.message); }`,
    });
    expect(outcome).toMatchObject({ ok: true, value: 'the server said no' });
  });

  it('names a tool that does not exist, and a syntax error, as such', async () => {
    const host = recordingHost();
    expect(await sandbox.run({ host, code: 'return await tools.missing({})' })).toMatchObject({
      ok: false,
      code: 'EXEC_SCRIPT_ERROR',
    });
    expect(await sandbox.run({ host, code: 'return (' })).toMatchObject({ ok: false, code: 'EXEC_SYNTAX_ERROR' });
  });

  it('starts every script in a fresh context', async () => {
    const host = recordingHost();
    await sandbox.run({ host, code: 'globalThis.leftover = 42; Object.prototype.polluted = true; return 1' });
    expect(await sandbox.run({ host, code: 'return [typeof leftover, typeof ({}).polluted]' })).toMatchObject({
      ok: true,
      value: ['undefined', 'undefined'],
    });
  });
});
