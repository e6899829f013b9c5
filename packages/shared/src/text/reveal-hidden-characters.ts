// The characters a reader cannot see but a display acts on: C0 controls except tab and newline
// (ESC drives a terminal; a carriage return or backspace hides what came before it on the line),
// DEL and the C1 controls (U+009B is a one-byte ESC [), the Unicode bidi controls that reorder text
// on screen (`notes/\u202Egnp.exe` shows as `notes/exe.png`), and the zero-width characters that
// make two different strings look the same. A carriage return before a newline (a Windows line end)
// and the zero-width joiner and non-joiner (which shape emoji sequences and several scripts) hide
// nothing and stay. One character class, one lookahead of one character and no quantifier: the scan
// is linear whatever the input.
const HIDDEN =
  // eslint-disable-next-line no-control-regex -- matching control characters is this module's job
  /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * `text` with every hidden character (see above) written as a visible `\uXXXX` escape, so that what
 * a model, an MCP server, a tool or a run spec wrote is shown as it is rather than acted on. Tab, newline and
 * the carriage return of a Windows line end stay, for multi-line text. The escape is the one JSON uses: applied to JSON text it
 * gives JSON text of the same value. A literal backslash-u already in `text` is left as it is, so
 * the output shows the hidden characters but is not a lossless encoding.
 */
export function revealHiddenCharacters(text: string): string {
  return text.replace(HIDDEN, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
