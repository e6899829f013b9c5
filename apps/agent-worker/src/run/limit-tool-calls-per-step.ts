import { AgentqError } from '@agentq/shared';
import type { Tool, ToolSet } from 'ai';

/** Code of the tool error a call past the per-step budget gets. */
export const TOOL_CALL_BUDGET_EXCEEDED = 'TOOL_CALL_BUDGET_EXCEEDED';

type Execute = (input: unknown, options: { toolCallId: string; experimental_context?: unknown }) => unknown;
type NeedsApproval = (
  input: unknown,
  options: { toolCallId: string; experimental_context?: unknown },
) => boolean | PromiseLike<boolean>;
type InputAvailable = Parameters<NonNullable<Tool['onInputAvailable']>>[0];

// One limited copy per tool object, shared by every run that shows the tool: a parked run holds
// no copy of its tool set's functions. Each call finds its run's count through its context.
const limited = new WeakMap<Tool, Tool>();
// The contexts {@link stepCallBudget} gave a budget: only calls carrying one execute.
const budgets = new WeakMap<object, StepCallBudget>();

/**
 * One model loop's count of the current step's calls: where each call stands in the step, and how
 * many executed. It reaches the shared limited tools through the loop's `experimental_context`
 * (see {@link stepCallBudget}).
 */
export class StepCallBudget {
  private readonly places = new Map<string, number>();
  private executions = 0;

  constructor(readonly maxCalls: number) {}

  /** Starts a new step's count; call it before each model step (`prepareStep`). */
  startStep(): void {
    this.places.clear();
    this.executions = 0;
  }

  /** The call's place in the step, given the first time the step shows it. */
  placeOf(toolCallId: string): number {
    let place = this.places.get(toolCallId);
    if (place === undefined) {
      place = this.places.size + 1;
      this.places.set(toolCallId, place);
    }
    return place;
  }

  /** Whether the current step's model response holds a call of this id (one the step showed). */
  shows(toolCallId: string): boolean {
    return this.places.has(toolCallId);
  }

  /** Counts an execution of `toolCallId`, or throws the refusal when it is past the budget. */
  execution(toolCallId: string): void {
    const place = this.placeOf(toolCallId);
    if (place > this.maxCalls) throw this.refusal(place);
    this.executions += 1;
    if (this.executions > this.maxCalls) throw this.refusal(this.executions);
  }

  private refusal(place: number): AgentqError {
    return new AgentqError({
      code: TOOL_CALL_BUDGET_EXCEEDED,
      message: `Not executed: one step may make at most ${this.maxCalls} tool calls (AGENTQ_MAX_TOOL_CALLS_PER_STEP), and this was call ${place}. Make fewer calls per step.`,
    });
  }
}

/**
 * Gives the calls that carry `context` as their `experimental_context` (a model loop's) a new
 * budget of `maxCalls` calls per step, and returns it: the loop starts each step's count with it.
 */
export function stepCallBudget(context: object, options: { maxCalls: number }): StepCallBudget {
  const budget = new StepCallBudget(options.maxCalls);
  budgets.set(context, budget);
  return budget;
}

/**
 * Wraps the tools the model calls directly so that one step spends at most `maxCalls` of its
 * calls (`AGENTQ_MAX_TOOL_CALLS_PER_STEP`) on executions and approval requests together: a model
 * that asks for a thousand fetches, or a thousand calls of a gated tool, in one step makes
 * `maxCalls` requests or asks for `maxCalls` approvals, and every call past them gets a
 * `TOOL_CALL_BUDGET_EXCEEDED` tool error that names the limit. A refused call never reaches the
 * tool and never asks a person: no approval record or job, no claim, no journal entry, no request.
 *
 * The wrappers are shared by every run: each call is counted in the {@link StepCallBudget} its
 * `experimental_context` carries (see {@link stepCallBudget}), and a call without one neither
 * executes nor asks for approval.
 *
 * Each call gets its place in the step the first time the SDK shows it: `onInputAvailable`, which
 * the SDK calls for every valid call in the order the model listed them before it asks any
 * `needsApproval`; then `needsApproval`; then `execute`. A call past the budget answers "no
 * approval needed", so the SDK executes it at once, and `execute` refuses it. Counting in list
 * order means a gated call and an ungated one share the budget by position, and a run resumed from
 * its checkpoint refuses the same calls again. The approved calls a resumed run executes before
 * its first new step are counted the same way (the SDK asks `needsApproval` again for each), then
 * `startStep` starts the next step afresh.
 *
 * Executions are also counted on their own, so calls that repeat one id cannot execute past the
 * budget either. Only the model's own calls count: the one call a `tool_invoke` makes runs on the
 * unwrapped tool set and is that call's work.
 */
export function limitToolCallsPerStep(tools: ToolSet): ToolSet {
  const out: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) {
    out[name] = limitTool(tool);
  }
  return out;
}

function limitTool(tool: Tool): Tool {
  const execute = tool.execute as Execute | undefined;
  if (!execute) return tool;
  const known = limited.get(tool);
  if (known) return known;
  const onInputAvailable = tool.onInputAvailable;
  const needsApproval = tool.needsApproval;
  const wrapper = {
    ...tool,
    onInputAvailable: async (available: InputAvailable) => {
      // A call without a budget is placed nowhere: its `needsApproval` and `execute` refuse it.
      budgets.get(available.experimental_context as object)?.placeOf(available.toolCallId);
      await onInputAvailable?.(available);
    },
    ...(needsApproval === undefined || needsApproval === false
      ? {}
      : {
          needsApproval: async (
            input: unknown,
            approvalOptions: { toolCallId: string; experimental_context?: unknown },
          ) => {
            const budget = budgetOf(approvalOptions.experimental_context);
            if (budget.placeOf(approvalOptions.toolCallId) > budget.maxCalls) return false;
            return typeof needsApproval === 'function'
              ? await (needsApproval as NeedsApproval)(input, approvalOptions)
              : needsApproval;
          },
        }),
    // Async, so that a refusal is a rejected call like any other tool failure.
    execute: async (input: unknown, executionOptions: { toolCallId: string; experimental_context?: unknown }) => {
      budgetOf(executionOptions.experimental_context).execution(executionOptions.toolCallId);
      return await execute(input, executionOptions);
    },
  } as Tool;
  limited.set(tool, wrapper);
  return wrapper;
}

/** The budget a call carries; a call without one is never made: nothing would count it. */
function budgetOf(context: unknown): StepCallBudget {
  const budget = typeof context === 'object' && context !== null ? budgets.get(context) : undefined;
  if (budget) return budget;
  throw new AgentqError({
    code: 'TOOL_NOT_EXECUTABLE',
    message: 'a tool was called without a model step call budget; it was not called',
  });
}
