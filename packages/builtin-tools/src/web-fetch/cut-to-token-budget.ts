import { decode, encode } from 'gpt-tokenizer';

/** A text within a token budget. */
export interface BudgetedText {
  text: string;
  /** Whether the text was cut to fit. */
  cut: boolean;
}

/** Characters tokenized at a time. */
const segmentChars = 1_000;

/**
 * Where the segment starting at `start` ends: at the last whitespace of its second half when
 * there is one, so that words are rarely split, else at the full length.
 */
function segmentEnd(text: string, start: number): number {
  const limit = Math.min(text.length, start + segmentChars);
  if (limit === text.length) return limit;
  for (let index = limit; index > start + segmentChars / 2; index -= 1) {
    const code = text.charCodeAt(index - 1);
    if (code === 0x20 || code === 0x0a || code === 0x09) return index;
  }
  return limit;
}

/**
 * `text` cut to about `maxTokens` o200k tokens (the tokenizer the registry counts tool definitions
 * with). The text is tokenized a segment at a time and only until the budget is spent: a page far
 * over the budget is never tokenized whole, and a long run without spaces (which byte-pair
 * encoding handles in worse than linear time) is never handed to the tokenizer in one piece. Counts
 * are per segment, so a word split at a segment end may count one token more than in one piece.
 */
export function cutToTokenBudget(text: string, maxTokens: number): BudgetedText {
  let used = 0;
  for (let start = 0; start < text.length;) {
    const end = segmentEnd(text, start);
    const tokens = encode(text.slice(start, end));
    if (used + tokens.length > maxTokens) {
      return { text: text.slice(0, start) + decode(tokens.slice(0, maxTokens - used)), cut: true };
    }
    used += tokens.length;
    start = end;
  }
  return { text, cut: false };
}
