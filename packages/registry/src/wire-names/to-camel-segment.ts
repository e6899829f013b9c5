/**
 * One camelCase segment of an MCP wire name: trim, lowercase, upper-case the character after each
 * run of non-alphanumerics, drop the non-alphanumerics, and prefix `_` when the result starts with
 * a digit. Only ASCII letters and digits survive, because that is what providers accept; so the
 * mapping is lossy (`get-sum` and `get_sum` both give `getSum`) and never used alone as an id.
 *
 * @example toCamelSegment('@anthropic/mcp-server') === 'AnthropicMcpServer'
 */
export function toCamelSegment(text: string): string {
  const lower = text.trim().toLowerCase();
  let out = '';
  let upperNext = false;
  for (const character of lower) {
    if (/^[a-z0-9]$/.test(character)) {
      out += upperNext ? character.toUpperCase() : character;
      upperNext = false;
    } else {
      upperNext = true;
    }
  }
  return /^[0-9]/.test(out) ? `_${out}` : out;
}
