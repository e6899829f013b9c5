/** Names a run's tool search calls carry: agentq's meta `tool_search`, the provider's own search. */
export const TOOL_SEARCH_CALL_NAMES = ['tool_search', 'provider_tool_search'] as const;

/** What a tool search call asked and found, whichever search ran it. */
export interface ToolSearchCallSummary {
  /** The query, when the call had one. */
  query?: string;
  /** Names of the tools it found, in order (absent while it has no result). */
  found?: string[];
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function queryOf(input: unknown): string | undefined {
  if (!isObject(input)) return undefined;
  // The meta tool and Anthropic's search: `{ query }`; OpenAI's hosted search: `{ arguments: { query } }`.
  const query = input.query ?? (isObject(input.arguments) ? input.arguments.query : undefined);
  return typeof query === 'string' ? query : undefined;
}

function namesOf(items: unknown[]): string[] {
  return items.flatMap((item) => {
    if (!isObject(item)) return [];
    // Meta results and OpenAI's loaded functions have `name`; Anthropic's references `toolName`.
    const name = item.name ?? item.toolName ?? item.tool_name;
    return typeof name === 'string' ? [name] : [];
  });
}

function foundOf(output: unknown): string[] | undefined {
  if (Array.isArray(output)) return namesOf(output);
  if (isObject(output)) {
    if (Array.isArray(output.results)) return namesOf(output.results);
    if (Array.isArray(output.tools)) return namesOf(output.tools);
  }
  return undefined;
}

/**
 * The query and the tools found of a tool search call (the meta `tool_search`, or the provider's
 * search as a run records it: `provider_tool_search`), so that every view shows both searches
 * alike; `undefined` for any other tool. Reads the shapes each search returns: the meta tool's
 * `{ results: [{ name }] }`, Anthropic's `[{ type: 'tool_reference', toolName }]` and OpenAI's
 * `{ tools: [{ name }] }`; a refusal or anything else has no `found`.
 */
export function toolSearchCallSummary(call: {
  toolName: string;
  input: unknown;
  output?: unknown;
}): ToolSearchCallSummary | undefined {
  if (!(TOOL_SEARCH_CALL_NAMES as readonly string[]).includes(call.toolName)) return undefined;
  const query = queryOf(call.input);
  const found = foundOf(call.output);
  return { ...(query === undefined ? {} : { query }), ...(found === undefined ? {} : { found }) };
}
