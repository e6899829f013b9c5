/** Longest snippet handed to the model per result. */
export const MAX_SNIPPET_CHARS = 500;

/**
 * A provider's snippet as plain text: the highlighting tags some providers put around matched
 * words removed, whitespace collapsed, and cut to {@link MAX_SNIPPET_CHARS}.
 */
export function cleanSnippet(text: string | undefined): string {
  // `<[^<>]*>` cannot backtrack across tags: linear in the snippet.
  const plain = (text ?? '')
    .replace(/<[^<>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  return plain.length > MAX_SNIPPET_CHARS ? `${plain.slice(0, MAX_SNIPPET_CHARS - 1)}…` : plain;
}
