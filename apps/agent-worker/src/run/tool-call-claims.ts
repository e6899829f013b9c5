import type { RecordedToolResult } from '@agentq/store';
import type { ToolExecutionOptions } from 'ai';
import type { ElicitationScope } from '../elicitations/elicitation-scope.js';

/** Thrown out of a claim when the call was already claimed or recorded by another attempt. */
export class ToolCallAlreadyClaimed extends Error {
  constructor(readonly recorded: RecordedToolResult) {
    super('tool call already claimed');
    this.name = 'ToolCallAlreadyClaimed';
  }
}

/** What whatever makes a run's tool call's external request needs of the call. */
export interface ToolCallScope {
  /** Claims the tool call; throws when it must not go out. Idempotent. */
  claim(): Promise<void>;
  /** Where the call's MCP server's questions go. @default none (they are declined) */
  elicitation?: ElicitationScope;
}

// Keyed by the abort signal each call is given its own of (see `withToolCallScope`).
const scopes = new WeakMap<AbortSignal, ToolCallScope>();

/**
 * Runs `execute` (a tool's own execute) as one tool call of a run, with `scope` for whatever makes
 * the external request: the MCP pool claims the call right before the request leaves (after it has
 * a connection, so a worker that dies while a server starts has claimed nothing) and hands the
 * server's questions to the call's elicitation scope.
 *
 * The call gets an abort signal of its own, a child of the one it was given, and the scope is found
 * by that signal ({@link toolCallScopeOf}): every tool passes its execution options' `abortSignal`
 * on to its requests, nested calls (`tool_invoke`, code mode) included, which come back through
 * here with their own. An `AsyncLocalStorage` would find the scope without it, but once used it
 * turns on promise hooks for the whole process, which every promise of every run then pays for.
 */
export async function withToolCallScope<T>(
  options: ToolExecutionOptions,
  scope: ToolCallScope,
  execute: (options: ToolExecutionOptions) => T | PromiseLike<T>,
): Promise<T> {
  const parent = options.abortSignal;
  const controller = new AbortController();
  const abort = () => controller.abort(parent?.reason);
  if (parent?.aborted) abort();
  else parent?.addEventListener('abort', abort, { once: true });
  let claimed: Promise<void> | undefined;
  scopes.set(controller.signal, { claim: () => (claimed ??= scope.claim()), elicitation: scope.elicitation });
  try {
    return await execute({ ...options, abortSignal: controller.signal });
  } finally {
    parent?.removeEventListener('abort', abort);
  }
}

/** The scope of the run's tool call `signal` was handed to, if any (tools called outside a run have none). */
export function toolCallScopeOf(signal: AbortSignal | undefined): ToolCallScope | undefined {
  return signal === undefined ? undefined : scopes.get(signal);
}
