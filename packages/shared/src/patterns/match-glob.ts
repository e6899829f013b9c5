/**
 * Whether `text` matches the glob `pattern`, in which `*` stands for any run of characters
 * (including none) and every other character is literal.
 *
 * No regular expression is built from the pattern: patterns come from run specs and server
 * definitions, and a backtracking regex such as `^.*.*.*…X$` takes exponential time on a string
 * that almost matches, which stalls a worker's event loop. Here the pattern is cut at its stars
 * into literal segments; the first must start the text, the last must end it, and each one in
 * between is taken at its leftmost occurrence after the previous one. Leftmost is always right for
 * `*`-only globs (a later occurrence can only leave less room for the segments after it), so
 * nothing is ever retried: the cost is at most one scan of the text per segment, O(n·m) in the
 * worst case and about O(n + m) in practice, whatever the number of stars.
 */
export function matchGlob(pattern: string, text: string): boolean {
  const star = pattern.indexOf('*');
  if (star === -1) return pattern === text;
  const segments = pattern.split('*');
  const head = segments[0] ?? '';
  const tail = segments[segments.length - 1] ?? '';
  // The head and the tail are anchored and may not overlap each other.
  if (head.length + tail.length > text.length) return false;
  if (!text.startsWith(head) || !text.endsWith(tail)) return false;
  const end = text.length - tail.length;
  let position = head.length;
  for (let index = 1; index < segments.length - 1; index++) {
    const segment = segments[index] as string;
    // Runs of stars leave empty segments, which match anywhere.
    if (segment.length === 0) continue;
    const found = text.indexOf(segment, position);
    if (found === -1 || found + segment.length > end) return false;
    position = found + segment.length;
  }
  return true;
}

/** Whether `text` matches any of `patterns` (see {@link matchGlob}). */
export function matchesAnyGlob(patterns: readonly string[], text: string): boolean {
  for (const pattern of patterns) {
    if (matchGlob(pattern, text)) return true;
  }
  return false;
}
