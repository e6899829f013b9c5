/** A link found in a Markdown file. */
export interface MarkdownLink {
  /** 1-based line of the link. */
  line: number;
  /** The link target as written: `path`, `path#anchor` or `#anchor`. */
  target: string;
}

/**
 * Markdown text with fenced code blocks blanked out (line count kept), and inline code dropped
 * (for links) or unwrapped to its text (for headings).
 */
function proseOnly(markdown: string, inlineCode: 'drop' | 'unwrap'): string[] {
  let fenced = false;
  return markdown.split('\n').map((line) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line.replace(/`([^`]*)`/g, inlineCode === 'drop' ? '' : '$1');
  });
}

/** Every inline link and image target of `markdown`, outside code. */
export function markdownLinks(markdown: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  proseOnly(markdown, 'drop').forEach((text, index) => {
    for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      links.push({ line: index + 1, target: match[1] ?? '' });
    }
  });
  return links;
}

/** GitHub's anchor for a heading text: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of every heading of `markdown`, with GitHub's `-1`, `-2` suffixes for repeats. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const text of proseOnly(markdown, 'unwrap')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading === null) continue;
    const slug = headingSlug(heading[1] ?? '');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}
