import { analyzeText, type AnalyzerSide } from '@agentq/shared';

/** Pronouns and auxiliaries of prose, dropped on top of the analyzer's common stop words. */
const KB_STOP_WORDS: ReadonlySet<string> = new Set(
  'but has have he her his if no not she so such they was were'.split(' '),
);

/**
 * The lexical terms of KB text: the one analyzer of agentq (`analyzeText`, shared with tool search)
 * with the stop words of prose. Ingestion (`index`) and `kb_search` (`query`) both go through here,
 * so stored terms and query terms always agree.
 */
export function kbTerms(text: string, side: AnalyzerSide): string[] {
  return analyzeText(text, side, KB_STOP_WORDS);
}
