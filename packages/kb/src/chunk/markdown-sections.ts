import type { DocumentSection } from './chunk-sections.js';

const HEADING = /^(#{1,6})[ \t]+(\S.*)$/;
const FENCE = /^[ \t]{0,3}(```|~~~)/;

/**
 * Splits Markdown at its ATX headings (`#` to `######`, outside fenced code) into sections named
 * by their heading path, e.g. `Knowledge bases > Settings`. Text before the first heading forms a
 * section without a heading. Also returns the first level-1 heading as the title.
 */
export function markdownSections(markdown: string): { title?: string; sections: DocumentSection[] } {
  const sections: DocumentSection[] = [];
  const path: string[] = [];
  let title: string | undefined;
  let lines: string[] = [];
  let inFence = false;
  const flush = () => {
    const text = lines.join('\n').trim();
    if (text !== '') {
      const heading = path.filter((part) => part !== '').join(' > ');
      sections.push(heading === '' ? { text } : { heading, text });
    }
    lines = [];
  };
  for (const line of markdown.split(/\r?\n/)) {
    if (FENCE.test(line)) inFence = !inFence;
    const match = inFence ? null : HEADING.exec(line);
    if (!match) {
      lines.push(line);
      continue;
    }
    flush();
    const level = (match[1] ?? '#').length;
    const text = stripClosingHashes(match[2] ?? '');
    if (level === 1 && title === undefined) title = text;
    path.length = level - 1;
    for (let index = 0; index < level - 1; index += 1) path[index] ??= '';
    path[level - 1] = text;
  }
  flush();
  return title === undefined ? { sections } : { title, sections };
}

// The optional closing `#`s of an ATX heading, trimmed by hand: a regex for "text then trailing
// hashes" backtracks quadratically on long lines.
function stripClosingHashes(text: string): string {
  let end = text.length;
  while (end > 0 && (text[end - 1] === ' ' || text[end - 1] === '\t' || text[end - 1] === '#')) end -= 1;
  return text.slice(0, end).trim() || text.trim();
}
