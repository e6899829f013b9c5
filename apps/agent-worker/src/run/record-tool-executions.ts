import { activeSpan, AgentqError, type SecretValueSet } from '@agentq/shared';
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import type { RecordedToolResult, RunFence, RunStore } from '@agentq/store';
import { ElicitationParkedError } from '../elicitations/elicitation-parked-error.js';
import { ElicitationScope, elicitedCallOutcome, type ElicitationRun } from '../elicitations/elicitation-scope.js';
import { ToolCallAlreadyClaimed, withToolCallScope } from './tool-call-claims.js';

// Keyed by the wrapped `execute`, not the tool object: copies of a wrapped tool (a cache marker,
// a `defer_loading` option, an approval gate) keep it and must not be wrapped twice.
const wrapped = new WeakSet<object>();
// One wrapper per tool object and name, shared by every run that shows the tool: a parked run
// holds no copy of its tool set's functions, only the set itself.
const wrappers = new WeakMap<Tool, Map<string, Tool>>();
// The journals {@link toolJournalContext} made: only these let a wrapped tool execute.
const journals = new WeakSet<object>();

/**
 * One attempt's tool journal: what every wrapped tool call of the attempt records into and answers
 * from. It reaches the shared wrappers as the AI SDK's `experimental_context` (see
 * {@link toolJournalContext}), which the SDK hands every `execute`, and which nested calls
 * (`tool_invoke`, `tool_exec`) pass on.
 */
export interface RecordToolExecutionsOptions {
  runId: string;
  /** The run's incarnation, written into every journal entry and claim. @default none */
  incarnation?: string;
  store: RunStore;
  /**
   * The run's recorded results as read when this attempt started. Only the process holding the
   * run's lock executes its tools, so this snapshot plus what this attempt records is complete.
   */
  recorded: Map<string, RecordedToolResult>;
  /** Identifies this attempt in claims. */
  owner: string;
  /** The run's BullMQ lock and this attempt's token, fencing claims. */
  fence?: RunFence;
  /** Called when the run's lock turned out to be lost: this attempt must stop. */
  onLockLost: () => void;
  /** Called before a tool really executes (not on replays), for progress and crash hooks. */
  onExecute?: (toolName: string, toolCallId: string) => void | Promise<void>;
  /** Called once a really executed call's result is in the journal (crash hooks). */
  onRecorded?: (toolName: string, toolCallId: string) => void;
  /**
   * Called when a call is answered from the journal instead of executing, so that the run can
   * re-apply what that result implies (what a meta tool call marked as inspected, say).
   */
  onReplay?: (call: { toolName: string; toolCallId: string; input: unknown; recorded: RecordedToolResult }) => void;
  /**
   * The process's secret values, masked out of every result and error message before it is
   * journaled, checkpointed or shown to the model.
   * @default nothing masked
   */
  secrets?: Pick<SecretValueSet, 'mask'>;
  /**
   * The run, for the questions MCP servers with the elicitation policy `ask` put during a call.
   * @default none (such questions are declined)
   */
  elicitations?: ElicitationRun;
  /**
   * Called when a call's server asked a question with no answer yet: the call's outcome is
   * discarded (neither journaled nor shown to the model), and the attempt must stop and park.
   */
  onElicitationParked?: (error: ElicitationParkedError) => void;
}

/** The error a call gets when an earlier attempt claimed it and stopped without a result. */
export const INTERRUPTED_TOOL_CALL =
  'This tool call did not finish: the worker running it stopped, and it may or may not have taken effect. Check before calling it again.';

/**
 * Wraps every tool's `execute` so that, within the attempt whose journal the call carries (see
 * {@link toolJournalContext}), each tool call id reaches the outside world at most once,
 * and so that no result carries a secret of this process: this wrapper is the one place every
 * tool's result passes (MCP tools, built-in tools, meta tools and the calls `tool_invoke` makes),
 * so the result, or the error message, is masked here before anything stores or shows it. Masking
 * is idempotent, so a nested call's result masked twice stays the same.
 *
 * Recording:
 * ever. A call is claimed in Redis (fenced by the run's lock) right before its request leaves (the
 * MCP pool claims once it has a connection; see {@link withToolCallScope}) and its result
 * recorded after; tools that call nothing outside are not claimed, only recorded;
 * a call found recorded returns that result instead of executing again, and a call found claimed
 * without a result (its worker died mid-call) returns a tool error saying so, because it may have
 * taken effect. A run re-run after a crash re-derives the same tool call ids from its checkpoint
 * (and a deterministic model), so a completed step's side effects never happen twice, and a
 * worker that lost its run to another can no longer start any tool call.
 */
export function recordToolExecutions(tools: ToolSet): ToolSet {
  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = wrapTool(name, tool);
  }
  return out;
}

/**
 * `journal` as the `experimental_context` of a model loop: the calls its wrapped tools get carry
 * it, and a wrapped tool called without one (outside every attempt) refuses to run.
 */
export function toolJournalContext(journal: RecordToolExecutionsOptions): RecordToolExecutionsOptions {
  journals.add(journal);
  return journal;
}

function wrapTool(name: string, tool: Tool): Tool {
  const execute = tool.execute;
  if (!execute || wrapped.has(execute)) return tool;
  let byName = wrappers.get(tool);
  const known = byName?.get(name);
  if (known) return known;
  const replaying: Tool = {
    ...tool,
    execute: async (input: unknown, executionOptions: ToolExecutionOptions) =>
      await executeOnce({
        name,
        input,
        executionOptions,
        execute: execute as (input: unknown, options: ToolExecutionOptions) => unknown,
        options: journalOf(name, executionOptions),
      }),
  } as Tool;
  if (replaying.execute) wrapped.add(replaying.execute);
  if (!byName) wrappers.set(tool, (byName = new Map()));
  byName.set(name, replaying);
  return replaying;
}

/** The journal a call carries; a call without one never runs: nothing would record it. */
function journalOf(name: string, executionOptions: ToolExecutionOptions): RecordToolExecutionsOptions {
  const context = executionOptions.experimental_context;
  if (typeof context === 'object' && context !== null && journals.has(context)) {
    return context as RecordToolExecutionsOptions;
  }
  throw new AgentqError({
    code: 'TOOL_NOT_EXECUTABLE',
    message: `tool ${name} was called without a run's tool journal; it was not called`,
  });
}

/** One call of a wrapped tool. */
interface JournaledCall {
  name: string;
  input: unknown;
  executionOptions: ToolExecutionOptions;
  /** The tool's own `execute`. */
  execute: (input: unknown, options: ToolExecutionOptions) => unknown;
  options: RecordToolExecutionsOptions;
}

/** Answers a call from the journal, or claims, executes and journals it. */
async function executeOnce(call: JournaledCall): Promise<unknown> {
  const { name, input, executionOptions, options } = call;
  const mask = <T>(value: T): T => (options.secrets ? options.secrets.mask(value) : value);
  const toolCallId = executionOptions.toolCallId;
  // The AI SDK's tool call span is active here: say what agentq did with the call.
  const span = activeSpan();
  span?.setAttribute('agentq.run.id', options.runId);
  const replayed = (recorded: RecordedToolResult) => {
    span?.setAttribute('agentq.tool.outcome', 'claimedBy' in recorded ? 'interrupted' : 'replayed');
    options.onReplay?.({ toolName: name, toolCallId, input, recorded });
    return replay(recorded, mask);
  };
  const known = options.recorded.get(toolCallId);
  if (known) {
    const elicited = await elicitedOutcomeOf(known, toolCallId, options);
    if (elicited?.action === 'park') throw parkedAgain(elicited, options);
    if (!elicited) return replayed(known);
  }
  const startedAt = Date.now();
  const scope = options.elicitations
    ? new ElicitationScope(options.elicitations, { toolName: name, toolCallId, input })
    : undefined;
  const claim = claimOf({ name, toolCallId, startedAt, options, scope });
  await options.onExecute?.(name, toolCallId);
  let output: unknown;
  try {
    output = mask(
      await withToolCallScope(executionOptions, { claim, elicitation: scope }, (options) =>
        call.execute(input, options),
      ),
    );
  } catch (thrown) {
    if (scope?.parked) throw await parked(scope, scope.parked, options);
    const claimed = findClaimed(thrown);
    if (claimed) return replayed(claimed.recorded);
    const error = maskedError(thrown, mask);
    // An aborted call did not finish; it must run again when the run resumes.
    const aborted = executionOptions.abortSignal?.aborted === true;
    span?.setAttribute('agentq.tool.outcome', aborted ? 'aborted' : 'error');
    if (aborted) await giveBack(scope);
    if (!aborted) {
      const message = error instanceof Error ? error.message : String(error);
      await journal(call, { ok: false, error: message }, startedAt);
    }
    throw error;
  }
  if (scope?.parked) throw await parked(scope, scope.parked, options);
  await journal(call, { ok: true, output: toJson(output) }, startedAt);
  span?.setAttribute('agentq.tool.outcome', 'executed');
  options.onRecorded?.(name, toolCallId);
  return output;
}

/**
 * The claim a call takes right before its request leaves: fenced by the run's lock, and refused
 * when another attempt claimed or recorded the call first. The exception is a call an earlier
 * attempt parked on a question that now has an answer: its claim is rewritten to name that
 * question before the call goes out again with the answer, so that it goes out with it once.
 */
function claimOf(call: {
  name: string;
  toolCallId: string;
  startedAt: number;
  options: RecordToolExecutionsOptions;
  scope: ElicitationScope | undefined;
}): () => Promise<void> {
  const { options } = call;
  const claimWith = async (answeredElicitation?: string) => {
    const outcome = await options.store.claimToolCall({
      runId: options.runId,
      toolCallId: call.toolCallId,
      owner: options.owner,
      fence: options.fence,
      startedAt: call.startedAt,
      toolName: call.name,
      incarnation: options.incarnation,
      answeredElicitation,
    });
    if (outcome.status === 'lock-lost') {
      options.onLockLost();
      throw new Error('This run moved to another worker; the call was not made here.');
    }
    return outcome;
  };
  return async () => {
    const outcome = await claimWith();
    if (outcome.status !== 'exists') return;
    const elicited = await elicitedOutcomeOf(outcome.recorded, call.toolCallId, options);
    if (elicited?.action === 'park' && call.scope) {
      call.scope.parked = new ElicitationParkedError(elicited);
      throw call.scope.parked;
    }
    if (elicited?.action === 'repeat') {
      const marked = await claimWith(elicited.elicitationId);
      if (marked.status !== 'exists') return;
      throw new ToolCallAlreadyClaimed(marked.recorded);
    }
    throw new ToolCallAlreadyClaimed(outcome.recorded);
  };
}

/**
 * What a call claimed without a result is to do, when an attempt of this run asked a question in
 * it (see {@link elicitedCallOutcome}): go out again with the answer (an elicitation cannot stay
 * open across a park), or park the run on the question still unanswered; `undefined` replays it
 * as interrupted.
 */
async function elicitedOutcomeOf(
  recorded: RecordedToolResult,
  toolCallId: string,
  options: RecordToolExecutionsOptions,
): Promise<Awaited<ReturnType<typeof elicitedCallOutcome>>> {
  if (!('claimedBy' in recorded) || !options.elicitations) return undefined;
  return await elicitedCallOutcome(options.elicitations, {
    toolCallId,
    answeredElicitation: recorded.answeredElicitation,
  });
}

/**
 * A call whose question an earlier attempt registered and did not park on (its worker died in
 * between): the attempt is told to park on it, and the call ends unrecorded, unsent.
 */
function parkedAgain(
  question: { elicitationId: string; serverId: string },
  options: RecordToolExecutionsOptions,
): ElicitationParkedError {
  activeSpan()?.setAttribute('agentq.tool.outcome', 'elicitation-parked');
  const error = new ElicitationParkedError(question);
  options.onElicitationParked?.(error);
  return error;
}

/**
 * A call parked on an unanswered question: the answers it took are given back, the attempt is
 * told, and the call ends unrecorded.
 */
async function parked(
  scope: ElicitationScope,
  error: ElicitationParkedError,
  options: RecordToolExecutionsOptions,
): Promise<ElicitationParkedError> {
  activeSpan()?.setAttribute('agentq.tool.outcome', 'elicitation-parked');
  await giveBack(scope);
  options.onElicitationParked?.(error);
  return error;
}

/**
 * Gives back the answers a call whose outcome is discarded took, so that the call made again in
 * its place can take them. When that fails they stay taken, and that call asks a person again.
 */
async function giveBack(scope: ElicitationScope | undefined): Promise<void> {
  await scope?.release().catch(() => undefined);
}

/** Records a call's outcome in the run's journal. */
async function journal(
  call: JournaledCall,
  outcome: { ok: true; output: unknown } | { ok: false; error: string },
  startedAt: number,
): Promise<void> {
  const { options } = call;
  await options.store.recordToolResult({
    runId: options.runId,
    toolCallId: call.executionOptions.toolCallId,
    result: {
      ...outcome,
      toolName: call.name,
      incarnation: options.incarnation,
      startedAt,
      finishedAt: Date.now(),
    },
  });
}

/** The claim refusal behind `error`, also when a tool wrapped it in its own error. */
function findClaimed(error: unknown): ToolCallAlreadyClaimed | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth += 1) {
    if (current instanceof ToolCallAlreadyClaimed) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

// A journal entry written before masking existed is masked on its way back too.
function replay(recorded: RecordedToolResult, mask: <T>(value: T) => T): unknown {
  if ('claimedBy' in recorded) throw new Error(INTERRUPTED_TOOL_CALL);
  if (recorded.ok) return mask(recorded.output);
  throw new Error(mask(recorded.error));
}

/**
 * `error` with its message masked. Only the message travels on (the SDK hands the model the
 * message, and the journal keeps it); the same error is kept when there is nothing to mask, so its
 * class and code reach whoever inspects it.
 */
function maskedError(error: unknown, mask: <T>(value: T) => T): unknown {
  const message = error instanceof Error ? error.message : String(error);
  const masked = mask(message);
  if (masked === message) return error;
  if (error instanceof Error) {
    try {
      error.message = masked;
      if (error.message === masked) return error;
    } catch {
      // A frozen or accessor message: replaced below.
    }
  }
  return new Error(masked);
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value));
}
