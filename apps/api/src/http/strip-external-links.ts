/**
 * Removes `<link>` elements that point off the server (`http:`, `https:` or protocol-relative
 * URLs) from an HTML page, so that an admin page never makes the browser reach the internet.
 */
export function stripExternalLinks(html: string): string {
  // Tags are bounded by `>`, so the pattern is linear: no nested quantifiers.
  return html.replace(/<link\b[^>]*\bhref\s*=\s*["']?(?:https?:)?\/\/[^>]*>/gi, '');
}
