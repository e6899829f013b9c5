/**
 * Per-run tool state. Plain JSON so that the worker can checkpoint it and a run resumed in another
 * process keeps what the model already inspected.
 */
export interface RunToolState {
  /** Every tool of the request, inline and deferred, sorted. */
  allowedNames: string[];
  /** Tools whose signature the model has seen (`tool_inspect`, verbose `tool_search`, a refusal). */
  inspectedNames: string[];
}

/** A fresh state. */
export function createRunToolState(): RunToolState {
  return { allowedNames: [], inspectedNames: [] };
}

/** Records `name` as inspected, once. */
export function markInspected(state: RunToolState, name: string): void {
  if (!state.inspectedNames.includes(name)) state.inspectedNames.push(name);
}
