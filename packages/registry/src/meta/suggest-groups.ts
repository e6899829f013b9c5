import { labelOf, type ToolEntry } from '../registry/tool-entry.js';
import { normalizeName } from '@agentq/shared';

/** A group offered to the model when its search found nothing. */
export interface GroupSuggestion {
  group: string;
  /** Deferred tools of this run in the group. */
  tools: number;
}

/** Groups suggested at most. */
export const SUGGESTED_GROUP_COUNT = 5;

function trigrams(word: string): Set<string> {
  const padded = `  ${word} `;
  const out = new Set<string>();
  for (let index = 0; index + 3 <= padded.length; index += 1) out.add(padded.slice(index, index + 3));
  return out;
}

function similarity(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared += 1;
  return shared / (a.size + b.size - shared);
}

/**
 * The groups nearest to a query that matched nothing: each group scores the best character-trigram
 * similarity between a query word and a word of its label or of its tools' names, so a misspelt
 * product or verb still points somewhere; ties (and a query sharing nothing) fall back to the
 * largest groups. With a namespace filter, the other groups are what to try next.
 */
export function suggestGroups(query: string, entries: readonly ToolEntry[], namespace?: string): GroupSuggestion[] {
  const queryWords = query
    .split(/[^\p{L}\p{N}]+/u)
    .map(normalizeName)
    .filter((word) => word.length >= 3)
    .map(trigrams);
  const groups = new Map<string, { tools: number; words: Set<string> }>();
  for (const entry of entries) {
    const group = labelOf(entry);
    if (namespace !== undefined && (group === namespace || entry.namespace === namespace)) continue;
    const known = groups.get(group) ?? { tools: 0, words: new Set<string>() };
    known.tools += 1;
    for (const text of [group, entry.mcp?.toolName ?? entry.name]) {
      for (const word of text.split(/[^\p{L}\p{N}]+|(?<=[a-z])(?=[A-Z])/u)) {
        const normalized = normalizeName(word);
        if (normalized.length >= 3) known.words.add(normalized);
      }
    }
    groups.set(group, known);
  }
  const scored = [...groups.entries()].map(([group, { tools, words }]) => {
    let best = 0;
    for (const wanted of queryWords) {
      for (const word of words) best = Math.max(best, similarity(wanted, trigrams(word)));
    }
    return { group, tools, score: best };
  });
  scored.sort((a, b) => b.score - a.score || b.tools - a.tools || (a.group < b.group ? -1 : 1));
  return scored.slice(0, SUGGESTED_GROUP_COUNT).map(({ group, tools }) => ({ group, tools }));
}
