// The characters a reader cannot see but a display acts on, or that hide text:
// - C0 controls except tab and newline (ESC drives a terminal; a carriage return or backspace hides
//   what came before it on the line), DEL and the C1 controls (U+009B is a one-byte ESC [);
// - every Unicode default-ignorable code point: the bidi controls that reorder text on screen
//   (`notes/\u202Egnp.exe` shows as `notes/exe.png`), zero-width spaces, the soft hyphen,
//   invisible operators, Hangul fillers, and the tag characters U+E0000–E007F that spell text
//   nobody sees ("ASCII smuggling").
// What stays, because it hides nothing and real text needs it: a carriage return before a newline
// (a Windows line end); the zero-width joiner and non-joiner (emoji sequences, several scripts);
// the variation selectors (emoji and text presentation, CJK ideographic variants) and Mongolian's
// free variation selectors; and the three subdivision flags, the only tag sequences in use
// (England, Scotland, Wales: U+1F3F4, "gbeng" / "gbsct" / "gbwls" in tags, U+E007F).
// Alternatives of fixed shape, one lookahead of one character, no nested quantifier: the scan is
// linear whatever the input.
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is this module's job
  /(\u{1F3F4}\u{E0067}\u{E0062}(?:\u{E0065}\u{E006E}\u{E0067}|\u{E0073}\u{E0063}\u{E0074}|\u{E0077}\u{E006C}\u{E0073})\u{E007F})|\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|(?!\u200c|\u200d|\u180f|[\u180b-\u180d]|\ufe00|[\ufe01-\ufe0f]|[\u{e0100}-\u{e01ef}])\p{Default_Ignorable_Code_Point}/gu;

/**
 * `text` with every hidden character (see above) written as a visible `\uXXXX` escape (a pair of
 * them, one per UTF-16 unit, past U+FFFF), so that what a model, an MCP server, a tool or a run spec
 * wrote is shown as it is rather than acted on. Tab, newline and the carriage return of a Windows
 * line end stay, for multi-line text. The escape is the one JSON uses: applied to JSON text it
 * gives JSON text of the same value. A literal backslash-u already in `text` is left as it is, so
 * the output shows the hidden characters but is not a lossless encoding.
 */
export function revealHiddenCharacters(text: string): string {
  return text.replace(HIDDEN, (match: string, flag: string | undefined) => {
    if (flag !== undefined) return match;
    let escaped = '';
    for (let index = 0; index < match.length; index += 1) {
      escaped += `\\u${match.charCodeAt(index).toString(16).padStart(4, '0')}`;
    }
    return escaped;
  });
}
