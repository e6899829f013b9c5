// The tool searches other stacks ship, rebuilt from their documented behaviour for the side-by-side
// table in docs/benchmarks.md. Neither is agentq code; both rank the same registry entries.
import type { ToolEntry } from '@agentq/registry';
import { asSchema } from 'ai';
import type { Ranker } from './tool-search-eval.js';

type IdOf = (entry: ToolEntry) => string;

/** The tool's own name (not the wire name) and description, as a provider would be given them. */
function nameAndDescription(entry: ToolEntry): { name: string; description: string } {
  return {
    name: entry.mcp?.toolName ?? entry.name,
    description: (entry.tool as { description?: string }).description ?? '',
  };
}

/** Lower-case words; camelCase, snake_case and kebab-case names split into their words. */
function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

/**
 * The AI SDK's `toolSearch()` (ai-sdk.dev/docs/reference/ai-sdk-core/tool-search): local and
 * case-insensitive, matching the query's words in tool names and descriptions, camelCase names
 * split into words; name matches rank above description matches, equal scores keep registration
 * order; at most five results. Read here as: a tool's score is (query words found among its name's
 * words, then query words found among its description's words), compared in that order.
 */
export function aiSdkToolSearchRanker(entries: readonly ToolEntry[], idOf: IdOf): Ranker {
  const documents = entries.map((entry) => {
    const { name, description } = nameAndDescription(entry);
    return { id: idOf(entry), name: new Set(words(name)), description: new Set(words(description)) };
  });
  return async (query) => {
    const wanted = [...new Set(words(query))];
    const scored: Array<{ id: string; name: number; description: number; order: number }> = [];
    documents.forEach((document, order) => {
      let name = 0;
      let description = 0;
      for (const word of wanted) {
        if (document.name.has(word)) name += 1;
        if (document.description.has(word)) description += 1;
      }
      if (name + description > 0) scored.push({ id: document.id, name, description, order });
    });
    scored.sort(
      (left, right) => right.name - left.name || right.description - left.description || left.order - right.order,
    );
    return scored.slice(0, 5).map((hit) => hit.id);
  };
}

/**
 * Words a model leaves out when it writes a search pattern: articles, pronouns and the verbs of
 * asking. Only function words; no content word of any query is listed.
 */
const FUNCTION_WORDS = new Set(
  (
    'a an and are as at be by can could do does for from give how i in into is it its me my need of on or our ' +
    'please should some that the their them then there these this to use using want we what when where which ' +
    'who will with would you your'
  ).split(' '),
);

/**
 * Anthropic's regex tool search (`tool_search_tool_regex_20251119`), driven the way its documentation
 * shows: the model writes a Python `re.search` pattern of at most 200 characters, here the query's
 * content words as a case-insensitive alternation (`(?i)(word|word|…)`), matched against each tool's
 * name, description, and argument names and descriptions; up to five tools come back. The order of
 * matches is not documented: tools matching more of the alternatives come first, then catalog order.
 */
export function regexToolSearchRanker(entries: readonly ToolEntry[], idOf: IdOf): Ranker {
  const documents = entries.map((entry) => {
    const { name, description } = nameAndDescription(entry);
    const schema = asSchema(entry.tool.inputSchema).jsonSchema as {
      properties?: Record<string, { description?: unknown } | undefined>;
    };
    const argumentsText = Object.entries(schema.properties ?? {})
      .map(([key, value]) => `${key} ${typeof value?.description === 'string' ? value.description : ''}`)
      .join('\n');
    return { id: idOf(entry), text: `${name}\n${description}\n${argumentsText}` };
  });
  return async (query) => {
    const alternatives: string[] = [];
    let length = '(?i)()'.length;
    for (const word of new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u))) {
      if (word === '' || FUNCTION_WORDS.has(word)) continue;
      const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      if (length + escaped.length + 1 > 200) break;
      alternatives.push(escaped);
      length += escaped.length + 1;
    }
    if (alternatives.length === 0) return [];
    const patterns = alternatives.map((alternative) => new RegExp(alternative, 'i'));
    const scored: Array<{ id: string; matched: number; order: number }> = [];
    documents.forEach((document, order) => {
      const matched = patterns.filter((pattern) => pattern.test(document.text)).length;
      if (matched > 0) scored.push({ id: document.id, matched, order });
    });
    scored.sort((left, right) => right.matched - left.matched || left.order - right.order);
    return scored.slice(0, 5).map((hit) => hit.id);
  };
}
