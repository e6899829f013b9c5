import { stemmer } from 'stemmer';

/**
 * Text analysis for every lexical search of agentq: tool search and `kb_search`. One analyzer,
 * {@link analyzeText}, turns documents (tool text, KB chunks) and queries into terms, and each side
 * runs it exactly once: lowercase, split, drop stop words, Porter stem (the `stemmer` package), then
 * the small lexicon below. The only difference between the sides is identifier splitting: documents
 * are full of `camelCase`, `snake_case` and `kebab-case` names, so the index side also emits the
 * parts of such a word next to the word itself; a query is written in words, so `GitHub` stays
 * `github` and never becomes `git hub`.
 */

/**
 * English function words, and the verbs of asking ("please give", "I need"): noise in a lexical
 * match. A search adds its own words on top (see {@link analyzeText}).
 */
const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be by can could do does for from give how i in into is it its me my need needs of ' +
    'on or our please should some that the their them then there these this to use using want we what ' +
    'when where which who will with would you your'
  ).split(' '),
);

/** Words longer than this are dropped: a base64 blob or a hash is not a term anyone searches for. */
const MAX_WORD_LENGTH = 40;

/**
 * Abbreviations and product terms that mean the same thing in any tool catalog. Each row is
 * `[canonical, ...other spellings]`; a spelling of several words is a phrase. Both sides map every
 * spelling to the canonical term (a phrase keeps its own words and adds the canonical one), so
 * `PR`, `PRs` and `pull request` meet, whichever one the tool and the query used.
 *
 * Kept deliberately small and domain-general: only spellings a reader would call the same word,
 * never near-synonyms (`get`/`fetch`), which drag in every tool of a common verb.
 */
export const SEARCH_LEXICON: readonly (readonly string[])[] = [
  ['pr', 'pull request'],
  ['mr', 'merge request'],
  ['repository', 'repo'],
  ['kubernetes', 'k8s'],
  ['database', 'db'],
  ['directory', 'dir', 'folder'],
  ['environment', 'env'],
  ['configuration', 'config'],
  ['message', 'msg'],
  ['information', 'info'],
  ['image', 'img', 'picture'],
  ['javascript', 'js'],
  ['typescript', 'ts'],
  ['continuous integration', 'ci'],
  ['application', 'app'],
  ['execute', 'exec'],
  ['command', 'cmd'],
  ['authentication', 'auth'],
  ['organization', 'org', 'organisation'],
  ['statistics', 'stats'],
  ['parameter', 'param'],
];

/** Which side of the search a text is on. */
export type AnalyzerSide = 'index' | 'query';

/**
 * Stems by word: a vocabulary repeats itself, and stemming is the costly step of analysis. Cleared
 * when full, so memory stays bounded whatever the input.
 */
const stems = new Map<string, string>();
const STEM_CACHE_LIMIT = 100_000;

function stemWord(word: string): string {
  const known = stems.get(word);
  if (known !== undefined) return known;
  // Porter is defined for English letters; digits, mixed tokens and short words pass unchanged.
  const stem = word.length > 2 && /^[a-z]+$/.test(word) ? stemmer(word) : word;
  if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
  stems.set(word, stem);
  return stem;
}

/** Runs of letters and digits, Unicode-aware; one character class, so linear time. */
const WORD = /[\p{L}\p{N}]+/gu;

/** Raw words, as written: runs of letters and digits. */
function rawWords(text: string): string[] {
  return text.match(WORD) ?? [];
}

/**
 * Where {@link identifierParts} would cut a word; a word without one (most words of prose, `The`
 * included) skips the splitting.
 */
const IDENTIFIER_BOUNDARY = /[a-z0-9][A-Z]|[A-Z][A-Z][a-z]|[A-Za-z][0-9]|[0-9][A-Za-z]/;

/** Parts of one identifier-like word: `readTextFile` → read, text, file; `HTTPServer2` → http, server, 2. */
function identifierParts(word: string): string[] {
  return word
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z]{2,})/g, '$1 $2')
    .replace(/([A-Za-z])([0-9])/g, '$1 $2')
    .replace(/([0-9])([A-Za-z])/g, '$1 $2')
    .split(' ')
    .filter((part) => part !== '');
}

interface CompiledLexicon {
  /** One stemmed word → its canonical term. */
  single: Map<string, string>;
  /** Phrases of stemmed words → canonical term, longest first. */
  phrases: Array<{ words: string[]; canonical: string }>;
}

function compileLexicon(rows: readonly (readonly string[])[]): CompiledLexicon {
  const single = new Map<string, string>();
  const phrases: CompiledLexicon['phrases'] = [];
  for (const row of rows) {
    const [head] = row;
    if (head === undefined) continue;
    const canonical = rawWords(head.toLowerCase()).map(stemWord).join(' ');
    for (const spelling of row) {
      const words = rawWords(spelling.toLowerCase()).map(stemWord);
      if (words.length === 1) single.set(words[0] as string, canonical);
      else phrases.push({ words, canonical });
    }
  }
  phrases.sort((a, b) => b.words.length - a.words.length);
  return { single, phrases };
}

const lexicon = compileLexicon(SEARCH_LEXICON);

const phraseStarts = new Set(lexicon.phrases.map((phrase) => phrase.words[0] as string));

function applyLexicon(terms: string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < terms.length; index += 1) {
    const term = terms[index] as string;
    const canonical = lexicon.single.get(term);
    // A canonical form of several words (`continuous integration`) is indexed as its words.
    if (canonical !== undefined) out.push(...canonical.split(' '));
    else out.push(term);
    if (!phraseStarts.has(term)) continue;
    for (const phrase of lexicon.phrases) {
      if (phrase.words.every((word, offset) => terms[index + offset] === word)) {
        if (!phrase.canonical.includes(' ')) out.push(phrase.canonical);
      }
    }
  }
  return out;
}

/**
 * Terms of `text`, in order, repeats kept (term frequency matters on the index side).
 *
 * - `index`: each word is also split as an identifier, and both the whole word and its parts are
 *   kept, so `browser_close`, `browserClose` and `BrowserClose` all carry `browser` and `close`.
 * - `query`: words stay whole, so a product name like `GitHub` keeps its meaning.
 *
 * `extraStopWords` adds words a search drops on both sides, on top of the common ones: tool
 * search drops `tool`, which every tool description says; `kb_search` drops the pronouns and
 * auxiliaries of prose.
 */
export function analyzeText(text: string, side: AnalyzerSide, extraStopWords?: ReadonlySet<string>): string[] {
  const words: string[] = [];
  for (const raw of rawWords(text)) {
    if (raw.length > MAX_WORD_LENGTH) continue;
    const whole = raw.toLowerCase();
    words.push(whole);
    if (side === 'index' && IDENTIFIER_BOUNDARY.test(raw)) {
      const parts = identifierParts(raw);
      if (parts.length > 1) for (const part of parts) words.push(part.toLowerCase());
    }
  }
  const terms: string[] = [];
  for (const word of words) {
    if (STOP_WORDS.has(word) || extraStopWords?.has(word)) continue;
    terms.push(stemWord(word));
  }
  return applyLexicon(terms);
}

/** Lowercase letters and digits only: `Read_File` and `readFile` compare equal. */
export function normalizeName(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}
