import { QUEUE_NAMES, type ElicitationResponse } from '@agentq/shared';
import { keyNames, readElicitation, settleElicitation } from '@agentq/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ElicitationScope, type ElicitationRun } from '../../apps/agent-worker/src/elicitations/elicitation-scope.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';

// An answer to a server's question is a decision about one tool call: a confirmation given for one
// call must never let another call (a later step, a `tool_invoke`, a loop in `tool_exec`) through.
describe('the answer to an elicitation', () => {
  let ctx: TestContext;
  beforeAll(() => {
    ctx = createTestContext();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  const tool = 'mcp__bank__transfer';
  const input = { amount: 100, currency: 'EUR', to: 42 };
  const question = {
    message: 'Confirm transfer of 100 EUR to 42?',
    requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } }, required: ['confirm'] },
  };
  const confirmed: ElicitationResponse = { action: 'accept', content: { confirm: true } };

  let runs = 0;
  /** A run whose job record is there (an answer only counts while its run is), at `step`. */
  async function startRun(): Promise<ElicitationRun> {
    runs += 1;
    const run: ElicitationRun = {
      redis: ctx.redis,
      prefix: ctx.prefix,
      shardIndex: undefined,
      runId: `run-bind-${runs}`,
      incarnation: 'inc-1',
      timeoutMs: 60_000,
    };
    await ctx.redis.hset(
      keyNames(ctx.prefix).queueJob(QUEUE_NAMES.agentRuns, run.runId),
      'data',
      JSON.stringify({ incarnation: run.incarnation }),
    );
    return run;
  }

  /** One execution of a call at `step`, asking `serverId` the question. */
  async function execute(run: ElicitationRun, step: number, toolCallId: string, serverId = 'bank') {
    const scope = new ElicitationScope({ ...run, step }, { toolName: tool, toolCallId, input });
    const answer = await scope.ask(serverId, question);
    return { answer, parkedOn: scope.parked?.elicitationId, scope };
  }

  /** Call `toolCallId` parks at `step`, and a person confirms. */
  async function parkAndConfirm(run: ElicitationRun, step: number, toolCallId: string): Promise<string> {
    const first = await execute(run, step, toolCallId);
    expect(first.answer).toEqual({ action: 'cancel' });
    const elicitationId = first.parkedOn as string;
    expect(elicitationId).toMatch(/^elic-/);
    await settleElicitation({
      redis: ctx.redis,
      prefix: ctx.prefix,
      elicitationId,
      outcome: 'answer',
      response: { response: confirmed, answeredBy: 'alice', answeredAt: Date.now(), via: 'rest' },
    });
    return elicitationId;
  }

  /** Call `toolCallId` at `step` does not get the answer to `answered`: it asks a person itself. */
  async function expectParksAnew(
    run: ElicitationRun,
    step: number,
    toolCallId: string,
    answered: string,
    serverId = 'bank',
  ): Promise<void> {
    const outcome = await execute(run, step, toolCallId, serverId);
    expect(outcome.answer).toEqual({ action: 'cancel' });
    expect(outcome.parkedOn).toMatch(/^elic-/);
    expect(outcome.parkedOn).not.toBe(answered);
    const record = await readElicitation({ redis: ctx.redis, prefix: ctx.prefix, elicitationId: outcome.parkedOn! });
    expect(record?.response).toBeNull();
    expect(record?.request).toMatchObject({ toolCallId, serverId });
  }

  it('reaches the call that asked, made again after the resume, and no other call', async () => {
    const run = await startRun();
    const answered = await parkAndConfirm(run, 2, 'call-A');
    // A separate call in a later step, with the same tool, arguments and question: asked anew.
    await expectParksAnew(run, 3, 'call-B', answered);
    // The call that asked, made again once the run resumed (the step is asked of the model again).
    const again = await execute(run, 2, 'call-A');
    expect(again.answer).toEqual(confirmed);
    expect(again.parkedOn).toBeUndefined();
    // The same call made again once more (its worker died mid-call) still finds it.
    expect((await execute(run, 2, 'call-A')).answer).toEqual(confirmed);
    // Another call of the same step, after the call that asked used the answer: asked anew.
    await expectParksAnew(run, 2, 'call-B2', answered);
  });

  it('reaches a nested call (tool_exec, tool_invoke) only under its own nested call id', async () => {
    const run = await startRun();
    const first = 'call-C#1::mcp__bank__transfer';
    const answered = await parkAndConfirm(run, 1, first);
    // The next call of the same script loop, and a `tool_invoke` of a later step.
    await expectParksAnew(run, 1, 'call-C#2::mcp__bank__transfer', answered);
    await expectParksAnew(run, 4, 'call-D::mcp__bank__transfer', answered);
    expect((await execute(run, 1, first)).answer).toEqual(confirmed);
  });

  it('does not reach the same tool name on another server', async () => {
    const run = await startRun();
    const answered = await parkAndConfirm(run, 0, 'call-E');
    await expectParksAnew(run, 0, 'call-E', answered, 'other-bank');
    await expectParksAnew(run, 0, 'call-F', answered, 'other-bank');
    expect((await execute(run, 0, 'call-E')).answer).toEqual(confirmed);
  });

  it('reaches the one call the resumed step makes in its place under another id, once', async () => {
    const run = await startRun();
    const answered = await parkAndConfirm(run, 5, 'call-G');
    // A model that is not deterministic gives the call made again another id: it gets the answer.
    const retried = await execute(run, 5, 'call-G2');
    expect(retried.answer).toEqual(confirmed);
    // A second call of that step, or the first call's old id, does not.
    await expectParksAnew(run, 5, 'call-G3', answered);
    await expectParksAnew(run, 5, 'call-G', answered);
  });

  it('reaches the nested call at the same place of the call made again under another id', async () => {
    const run = await startRun();
    const answered = await parkAndConfirm(run, 1, 'call-K#1::mcp__bank__transfer');
    // The resumed step's `tool_exec` has another id: its second call is not the one that asked.
    await expectParksAnew(run, 1, 'call-K2#2::mcp__bank__transfer', answered);
    await expectParksAnew(run, 1, 'call-K2::mcp__bank__transfer', answered);
    await expectParksAnew(run, 1, 'call-K2', answered);
    expect((await execute(run, 1, 'call-K2#1::mcp__bank__transfer')).answer).toEqual(confirmed);
  });

  it('is not taken by another call of the resumed step when the step makes the call that asked again', async () => {
    const run = await startRun();
    const answered = await parkAndConfirm(run, 9, 'call-L');
    const nested = await parkAndConfirm(run, 9, 'call-M#1::mcp__bank__transfer');
    // The resumed step holds the calls that asked (a deterministic model), and others like them.
    const resumed: ElicitationRun = {
      ...run,
      stepShows: (id) => ['call-L', 'call-L2', 'call-M', 'call-M2'].includes(id),
    };
    await expectParksAnew(resumed, 9, 'call-L2', answered);
    await expectParksAnew(resumed, 9, 'call-M2#1::mcp__bank__transfer', nested);
    expect((await execute(resumed, 9, 'call-L')).answer).toEqual(confirmed);
    expect((await execute(resumed, 9, 'call-M#1::mcp__bank__transfer')).answer).toEqual(confirmed);
  });

  it('is given back by a call whose outcome was discarded, for the call made again in its place', async () => {
    const run = await startRun();
    await parkAndConfirm(run, 6, 'call-H');
    const taker = await execute(run, 6, 'call-H2');
    expect(taker.answer).toEqual(confirmed);
    // Another call cannot take it while it is held.
    expect((await execute(run, 6, 'call-H3')).answer).toEqual({ action: 'cancel' });
    // The taker parked on a later question, so its outcome is discarded: the answer goes back.
    await taker.scope.release();
    expect((await execute(run, 6, 'call-H4')).answer).toEqual(confirmed);
  });

  it('is not taken by a call of a later step, before the call that asked is made again', async () => {
    const run = await startRun();
    const answered = await parkAndConfirm(run, 7, 'call-I');
    await expectParksAnew(run, 8, 'call-J', answered);
    expect((await execute(run, 7, 'call-I')).answer).toEqual(confirmed);
  });
});
