import { createSecretValueSet, SECRET_MASK } from '@agentq/shared';
import { tool, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  INTERRUPTED_TOOL_CALL,
  recordToolExecutions,
  toolJournalContext,
  type RecordToolExecutionsOptions,
} from './record-tool-executions.js';
import { toolCallScopeOf } from './tool-call-claims.js';
import type { RecordedToolResult, RunStore, ToolCallClaim } from '@agentq/store';

/** An in-memory stand-in for the store's two tool-call operations. */
function memoryStore(options: { lockLost?: boolean } = {}) {
  const hash = new Map<string, RecordedToolResult>();
  const store = {
    async claimToolCall({ toolCallId, owner }: { toolCallId: string; owner: string }): Promise<ToolCallClaim> {
      if (options.lockLost) return { status: 'lock-lost' };
      const existing = hash.get(toolCallId);
      if (existing) return { status: 'exists', recorded: existing };
      hash.set(toolCallId, { claimedBy: owner });
      return { status: 'claimed' };
    },
    async recordToolResult({ toolCallId, result }: { toolCallId: string; result: RecordedToolResult }) {
      hash.set(toolCallId, result);
    },
  };
  return { hash, store: store as unknown as RunStore };
}

type Execute = (input: unknown, options: unknown) => Promise<unknown>;

/** `base` wrapped, and calls of its `count` tool made by the attempt whose journal is `journal`. */
function attempt(base: ToolSet, journal: RecordToolExecutionsOptions) {
  const tools = recordToolExecutions(base);
  const context = toolJournalContext(journal);
  return {
    tools,
    call: (toolCallId: string) =>
      (tools.count?.execute as Execute)({}, { toolCallId, messages: [], experimental_context: context }),
  };
}

// The test tools stand for external calls: like the MCP pool, they claim right before acting.
describe('recordToolExecutions', () => {
  it('executes a call once and replays its result afterwards', async () => {
    let runs = 0;
    const { store } = memoryStore();
    const base: ToolSet = {
      count: tool({
        inputSchema: z.object({}),
        execute: async (_input, executionOptions) => {
          await toolCallScopeOf(executionOptions.abortSignal)?.claim();
          return ++runs;
        },
      }),
    };
    const options = { runId: 'r', store, recorded: new Map(), owner: 'a1', onLockLost: () => undefined };
    const tools = attempt(base, options);
    expect(await tools.call('c1')).toBe(1);
    expect(await tools.call('c1')).toBe(1);
    // Another attempt, with its own snapshot, replays too.
    const again = attempt(base, { ...options, owner: 'a2', recorded: new Map() });
    expect(await again.call('c1')).toBe(1);
    expect(runs).toBe(1);
  });

  it('leaves a copy of a wrapped tool (a cache mark, a defer_loading option) wrapped once', () => {
    const base: ToolSet = { count: tool({ inputSchema: z.object({}), execute: async () => 1 }) };
    const wrapped = recordToolExecutions(base);
    const copy = { ...wrapped.count, providerOptions: { anthropic: { deferLoading: true } } } as ToolSet[string];
    const again = recordToolExecutions({ count: copy });
    expect(again.count).toBe(copy);
    expect(again.count?.execute).toBe(wrapped.count?.execute);
  });

  it('shares one wrapper per tool and name between runs, each call journalled in its own run', async () => {
    const first = memoryStore();
    const second = memoryStore();
    const base: ToolSet = { count: tool({ inputSchema: z.object({}), execute: async () => 1 }) };
    const one = attempt(base, {
      runId: 'r1',
      store: first.store,
      recorded: new Map(),
      owner: 'a1',
      onLockLost: () => {},
    });
    const two = attempt(base, {
      runId: 'r2',
      store: second.store,
      recorded: new Map(),
      owner: 'a2',
      onLockLost: () => {},
    });
    expect(two.tools.count).toBe(one.tools.count);
    // The same tool under another name is journalled under that name.
    expect(recordToolExecutions({ other: base.count as ToolSet[string] }).other).not.toBe(one.tools.count);
    await one.call('c1');
    await two.call('c2');
    expect([...first.hash.keys()]).toEqual(['c1']);
    expect([...second.hash.keys()]).toEqual(['c2']);
  });

  it('never runs a wrapped tool called without a journal, nor with a look-alike of one', async () => {
    let runs = 0;
    const { store, hash } = memoryStore();
    const base: ToolSet = { count: tool({ inputSchema: z.object({}), execute: async () => ++runs }) };
    const execute = recordToolExecutions(base).count?.execute as Execute;
    const lookAlike = { runId: 'r', store, recorded: new Map(), owner: 'a1', onLockLost: () => undefined };
    for (const context of [undefined, lookAlike]) {
      await expect(
        execute({}, { toolCallId: 'c1', messages: [], experimental_context: context }),
      ).rejects.toMatchObject({ code: 'TOOL_NOT_EXECUTABLE' });
    }
    expect(runs).toBe(0);
    expect(hash.size).toBe(0);
  });

  it('reports a call claimed by a dead attempt as interrupted instead of running it again', async () => {
    let runs = 0;
    const { store, hash } = memoryStore();
    hash.set('c1', { claimedBy: 'dead-attempt' });
    const base: ToolSet = {
      count: tool({
        inputSchema: z.object({}),
        execute: async (_input, executionOptions) => {
          await toolCallScopeOf(executionOptions.abortSignal)?.claim();
          return ++runs;
        },
      }),
    };
    const tools = attempt(base, {
      runId: 'r',
      store,
      recorded: new Map(),
      owner: 'a2',
      onLockLost: () => undefined,
    });
    await expect(tools.call('c1')).rejects.toThrow(INTERRUPTED_TOOL_CALL);
    expect(runs).toBe(0);
  });

  it('never starts a call once the run moved to another worker, and says so', async () => {
    let runs = 0;
    let lost = false;
    const { store } = memoryStore({ lockLost: true });
    const base: ToolSet = {
      count: tool({
        inputSchema: z.object({}),
        execute: async (_input, executionOptions) => {
          await toolCallScopeOf(executionOptions.abortSignal)?.claim();
          return ++runs;
        },
      }),
    };
    const tools = attempt(base, {
      runId: 'r',
      store,
      recorded: new Map(),
      owner: 'zombie',
      onLockLost: () => {
        lost = true;
      },
    });
    await expect(tools.call('c1')).rejects.toThrow();
    expect(lost).toBe(true);
    expect(runs).toBe(0);
  });

  it('does not claim tools that call nothing outside, and still replays them', async () => {
    let runs = 0;
    const { store, hash } = memoryStore();
    const base: ToolSet = { count: tool({ inputSchema: z.object({}), execute: async () => ++runs }) };
    const tools = attempt(base, {
      runId: 'r',
      store,
      recorded: new Map(),
      owner: 'a1',
      onLockLost: () => undefined,
    });
    expect(await tools.call('c1')).toBe(1);
    expect(hash.get('c1')).toEqual({
      ok: true,
      output: 1,
      toolName: 'count',
      startedAt: expect.any(Number),
      finishedAt: expect.any(Number),
    });
  });

  it('records failures, so a replay fails the same way', async () => {
    let runs = 0;
    const { store } = memoryStore();
    const base: ToolSet = {
      count: tool({
        inputSchema: z.object({}),
        execute: async (_input, executionOptions): Promise<number> => {
          await toolCallScopeOf(executionOptions.abortSignal)?.claim();
          runs += 1;
          throw new Error('nope');
        },
      }),
    };
    const options = { runId: 'r', store, recorded: new Map(), owner: 'a1', onLockLost: () => undefined };
    await expect(attempt(base, options).call('c1')).rejects.toThrow('nope');
    await expect(attempt(base, { ...options, recorded: new Map() }).call('c1')).rejects.toThrow('nope');
    expect(runs).toBe(1);
  });

  it('masks secrets out of results, error messages and replays before journaling them', async () => {
    const { store, hash } = memoryStore();
    const secrets = createSecretValueSet(['known-secret-value']);
    const base: ToolSet = {
      count: tool({
        inputSchema: z.object({}),
        execute: async (_input, { toolCallId }) => {
          if (toolCallId === 'fails') throw new Error('denied for known-secret-value');
          return { content: [{ text: `key=${encodeURIComponent('known-secret-value')}` }] };
        },
      }),
    };
    const options = { runId: 'r', store, recorded: new Map(), owner: 'a1', onLockLost: () => undefined, secrets };
    const tools = attempt(base, options);
    expect(await tools.call('works')).toEqual({ content: [{ text: `key=${SECRET_MASK}` }] });
    await expect(tools.call('fails')).rejects.toThrow(`denied for ${SECRET_MASK}`);
    expect(JSON.stringify([...hash.values()])).not.toContain('known-secret');
    // A journal entry written before masking comes back masked.
    const replayed = attempt(base, {
      ...options,
      recorded: new Map([
        ['old', { ok: true, output: 'was known-secret-value', toolName: 'count', startedAt: 0, finishedAt: 0 }],
      ]),
    });
    expect(await replayed.call('old')).toBe(`was ${SECRET_MASK}`);
  });
});
