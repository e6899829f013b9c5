import { labelOf, type ToolEntry } from '../registry/tool-entry.js';
import { META_TOOL_NAMES } from '../wire-names/tool-names.js';

/** Options of {@link buildDeferredToolsPrompt}. */
export interface DeferredToolsPromptOptions {
  /**
   * `meta`: the tools are found with agentq's meta tools. `native`: with the provider's own tool
   * search, and a found tool is then called directly by its name.
   * @default 'meta'
   */
  strategy?: 'meta' | 'native';
  /** Code mode is on: also say how to reach the tools from a `tool_exec` script. @default false */
  codeMode?: boolean;
}

/**
 * The system prompt section that tells the model deferred tools exist: how to reach them (the
 * three meta tools, or the provider's tool search), and one line per namespace label with its
 * count. Labels only, never raw server ids. In code mode it also says how to reach them from a
 * `tool_exec` script. Empty when nothing is deferred. Sorted, so the prompt
 * prefix stays stable for prompt caching.
 */
export function buildDeferredToolsPrompt(deferred: ToolEntry[], options: DeferredToolsPromptOptions = {}): string {
  if (deferred.length === 0) return '';
  // Entries sorted by name mostly come in runs of one label (a server's tools share a prefix):
  // count each run, then add it to the label's total once.
  const counts = new Map<string, number>();
  let label: string | undefined;
  let run = 0;
  for (const entry of deferred) {
    const next = labelOf(entry);
    if (next === label) {
      run += 1;
      continue;
    }
    if (label !== undefined) counts.set(label, (counts.get(label) ?? 0) + run);
    label = next;
    run = 1;
  }
  if (label !== undefined) counts.set(label, (counts.get(label) ?? 0) + run);
  const lines = [...counts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([label, count]) => `- ${label}: ${count} tool${count === 1 ? '' : 's'}`);
  const how =
    options.strategy === 'native'
      ? 'More tools are available than are listed. To use one: find it with your tool search tool ' +
        '(a query naming what it does, or its group), then call the tool it returns by its name.'
      : `More tools are available than are listed. To use one: find it with ${META_TOOL_NAMES.search} ` +
        `(a query, optionally a group), read its signature with ${META_TOOL_NAMES.inspect}, then run it with ` +
        `${META_TOOL_NAMES.invoke} ({ name, params }).`;
  const script =
    options.strategy === 'native'
      ? `To call several tools, or to go through many results, write one ${META_TOOL_NAMES.exec} script instead: ` +
        'in it, `await tools.<name>(params)` runs one by its name; only what the script returns comes back to you.'
      : `To call several tools, or to go through many results, write one ${META_TOOL_NAMES.exec} script instead: ` +
        `in it, \`await tools.${META_TOOL_NAMES.search}({ query })\` finds tools and \`await tools.<name>(params)\` ` +
        'runs one; only what the script returns comes back to you.';
  return [
    '<deferred_tools>',
    how,
    ...(options.codeMode ? [script] : []),
    'Groups of deferred tools:',
    ...lines,
    '</deferred_tools>',
  ].join('\n');
}
