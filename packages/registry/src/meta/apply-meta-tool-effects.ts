import { markInspected, type RunToolState } from '../exposition/run-tool-state.js';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';

/** One finished meta tool call, as journalled: the tool's wire name, its input and its output. */
export interface MetaToolCallRecord {
  toolName: string;
  input: unknown;
  output: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Applies to `state` what a meta tool call did to it, reading only the call's input and output:
 * a `tool_inspect` that returned a signature, a verbose `tool_search` that returned schemas, and a
 * `tool_invoke` refused with `TOOL_NOT_INSPECTED` (which showed the signature) each mark names as
 * inspected. Any other call changes nothing.
 *
 * The meta tools apply these effects as they run; a run that replays a journalled result instead
 * of running the tool again (after a crash, on another worker) calls this, so that its state is
 * what the journal implies and not only what the last checkpoint held. Idempotent, and a name
 * outside the run's `allowedNames` is never marked.
 */
export function applyMetaToolEffects(state: RunToolState, call: MetaToolCallRecord): void {
  const mark = (name: unknown) => {
    if (typeof name === 'string' && state.allowedNames.includes(name)) markInspected(state, name);
  };
  const { output, input } = call;
  if (!isObject(output)) return;
  switch (call.toolName) {
    case META_TOOL_NAMES.inspect:
      if (output.refused !== true && typeof output.signature === 'string') mark(output.name);
      return;
    case META_TOOL_NAMES.search: {
      if (!isObject(input) || input.verbose !== true || !Array.isArray(output.results)) return;
      for (const item of output.results) {
        if (!isObject(item)) continue;
        if (item.schema !== undefined) mark(item.name);
        // Results journalled before search kept rank order came grouped: { namespace, tools }.
        if (Array.isArray(item.tools)) {
          for (const found of item.tools) if (isObject(found) && found.schema !== undefined) mark(found.name);
        }
      }
      return;
    }
    case META_TOOL_NAMES.invoke:
      if (output.refused === true && output.code === 'TOOL_NOT_INSPECTED' && isObject(input)) mark(input.name);
      return;
    default:
      return;
  }
}
