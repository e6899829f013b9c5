/**
 * Text analysis for tool search: identifiers split into words (camelCase, snake_case, kebab-case,
 * digits), a light English suffix stemmer, stop words, and a small table of verbs that API authors
 * use interchangeably. All general-purpose: nothing here knows any particular tool or server.
 */

const STOP_WORDS = new Set(
  (
    'a an and are as at be by can could do does for from give how i in into is it its me my of on or ' +
    'our please some that the their them then there these this to tool tools use using want we what ' +
    'when where which who will with would you your need needs should'
  ).split(' '),
);

/**
 * Verbs and nouns with the same meaning in tool names. Each group is one meaning; a query word
 * from a group also searches the others, at a lower weight.
 */
const SYNONYM_GROUPS: string[][] = [
  ['get', 'fetch', 'retrieve', 'read', 'obtain', 'load', 'show', 'view', 'open'],
  ['list', 'enumerate', 'browse', 'all'],
  ['find', 'search', 'lookup', 'query', 'locate', 'look'],
  ['create', 'add', 'new', 'make', 'insert', 'register', 'open'],
  ['update', 'edit', 'modify', 'change', 'patch', 'set', 'alter'],
  ['delete', 'remove', 'drop', 'erase', 'destroy', 'discard'],
  ['write', 'save', 'store', 'put', 'persist', 'record'],
  ['send', 'post', 'publish', 'submit', 'notify'],
  ['move', 'rename', 'relocate', 'transfer'],
  ['run', 'execute', 'invoke', 'start', 'trigger', 'launch'],
  ['stop', 'cancel', 'abort', 'halt', 'terminate'],
  ['directory', 'folder', 'dir'],
  ['file', 'document', 'doc'],
  ['info', 'information', 'metadata', 'detail', 'stat', 'attribute'],
  ['message', 'email', 'mail'],
  ['issue', 'ticket', 'bug'],
  ['user', 'account', 'person', 'member', 'people'],
];

/** Splits text and identifiers into lowercase words. */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(/[^\p{L}\p{N}]+/u)
    .map((word) => word.toLowerCase())
    .filter((word) => word !== '');
}

/**
 * A conservative suffix stemmer: plural `s`/`ies`, `ing`, `ed`, then a final `e`, so that
 * `create`, `creates`, `created` and `creating` meet at `creat`.
 */
export function stem(word: string): string {
  let out = word;
  if (out.length <= 3 || !/^[a-z]+$/.test(out)) return out;
  if (out.endsWith('ies') && out.length > 4) out = `${out.slice(0, -3)}y`;
  else if (out.endsWith('sses')) out = out.slice(0, -2);
  else if (out.endsWith('s') && !/(ss|us|is)$/.test(out)) out = out.slice(0, -1);
  if (out.endsWith('ing') && out.length >= 6) out = undoubled(out.slice(0, -3));
  else if (out.endsWith('ed') && out.length >= 5) out = undoubled(out.slice(0, -2));
  if (out.endsWith('e') && out.length > 4) out = out.slice(0, -1);
  return out;
}

function undoubled(word: string): string {
  return /([^aeiouslz])\1$/.test(word) ? word.slice(0, -1) : word;
}

/** Index-side term processing: lowercase, stop words out, stemmed. */
export function processTerm(term: string): string | null {
  const lower = term.toLowerCase();
  if (STOP_WORDS.has(lower)) return null;
  return stem(lower);
}

const synonymsByStem = new Map<string, Set<string>>();
for (const group of SYNONYM_GROUPS) {
  const stems = group.map(stem);
  for (const member of stems) {
    const known = synonymsByStem.get(member) ?? new Set<string>();
    for (const other of stems) if (other !== member) known.add(other);
    synonymsByStem.set(member, known);
  }
}

/** Words of the query (stemmed, stop words out), and the stems of their synonyms. */
export function queryTerms(query: string): {
  terms: string[];
  expansions: string[];
  synonymsOf: Map<string, string[]>;
} {
  const terms = [
    ...new Set(
      splitWords(query)
        .map(processTerm)
        .filter((term): term is string => term !== null),
    ),
  ];
  const own = new Set(terms);
  const expansions = new Set<string>();
  const synonymsOf = new Map<string, string[]>();
  for (const term of terms) {
    const synonyms = [...(synonymsByStem.get(term) ?? [])].filter((synonym) => !own.has(synonym));
    synonymsOf.set(term, synonyms);
    for (const synonym of synonyms) expansions.add(synonym);
  }
  return { terms, expansions: [...expansions], synonymsOf };
}

/** Lowercase letters and digits only: `Read_File` and `readFile` compare equal. */
export function normalizeName(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
