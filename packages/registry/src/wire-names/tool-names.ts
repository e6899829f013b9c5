/** Fixed wire names of the builtin tools. */
export const BUILTIN_TOOL_NAMES = {
  webSearch: 'web_search',
  webFetch: 'web_fetch',
  kbSearch: 'kb_search',
  kbList: 'kb_list',
} as const;

/** Wire names of the meta tools. `tool_exec` is added only in code mode. */
export const META_TOOL_NAMES = {
  search: 'tool_search',
  inspect: 'tool_inspect',
  invoke: 'tool_invoke',
  exec: 'tool_exec',
} as const;

/** Longest tool name the providers accept. */
export const MAX_TOOL_NAME_LENGTH = 63;

/** Shape every wire name must have for the providers to accept it. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** Whether `name` is acceptable to the providers as a tool name. */
export function isValidToolName(name: string): boolean {
  return name.length <= MAX_TOOL_NAME_LENGTH && TOOL_NAME_PATTERN.test(name);
}
