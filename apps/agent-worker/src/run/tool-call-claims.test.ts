import { getEventListeners } from 'node:events';
import type { ToolExecutionOptions } from 'ai';
import { describe, expect, it } from 'vitest';
import { toolCallScopeOf, withToolCallScope } from './tool-call-claims.js';

const optionsOf = (toolCallId: string, abortSignal?: AbortSignal): ToolExecutionOptions => ({
  toolCallId,
  messages: [],
  abortSignal,
});

describe('withToolCallScope', () => {
  it('hands the call a signal of its own that finds its scope, nested calls their own, and claims once', async () => {
    const claims: string[] = [];
    const scopeOf = (id: string) => ({
      claim: async () => {
        claims.push(id);
      },
    });
    const run = new AbortController();
    const seen = await withToolCallScope(optionsOf('outer', run.signal), scopeOf('outer'), async (outer) => {
      expect(outer.abortSignal).not.toBe(run.signal);
      expect(outer.toolCallId).toBe('outer');
      // A nested call (tool_invoke) passes the outer call's signal on, and gets one of its own.
      const inner = await withToolCallScope(optionsOf('outer::x', outer.abortSignal), scopeOf('inner'), (nested) => {
        void toolCallScopeOf(nested.abortSignal)?.claim();
        return nested.abortSignal;
      });
      await toolCallScopeOf(outer.abortSignal)?.claim();
      await toolCallScopeOf(outer.abortSignal)?.claim();
      return { outer: outer.abortSignal, inner };
    });
    expect(claims).toEqual(['inner', 'outer']);
    expect(toolCallScopeOf(run.signal)).toBeUndefined();
    expect(toolCallScopeOf(undefined)).toBeUndefined();
    expect(seen.inner).not.toBe(seen.outer);
    // Nothing is left listening on the run's signal once the call is over.
    expect(getEventListeners(run.signal, 'abort')).toHaveLength(0);
  });

  it("aborts the call's signal with the run's reason, also when the run was aborted before it started", async () => {
    const scope = { claim: async () => undefined };
    const run = new AbortController();
    const reason = new Error('parked');
    const aborted = await withToolCallScope(optionsOf('c1', run.signal), scope, async (options) => {
      run.abort(reason);
      return options.abortSignal;
    });
    expect(aborted?.aborted).toBe(true);
    expect(aborted?.reason).toBe(reason);
    const late = await withToolCallScope(optionsOf('c2', run.signal), scope, (options) => options.abortSignal);
    expect(late?.reason).toBe(reason);
  });
});
