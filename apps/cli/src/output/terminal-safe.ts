// Control characters other than tab and newline, C1 included: ESC starts the sequences that move
// the cursor, recolour, retitle the window or (OSC 52) write the clipboard, and a carriage return
// or backspace can hide what came before it on the line.
// eslint-disable-next-line no-control-regex -- matching control characters is this module's job
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` with every control character but tab and newline written as a `\uXXXX` escape. What the
 * CLI prints comes in part from elsewhere (an MCP server's question, a tool's output, a model's
 * answer), and a terminal would act on those characters instead of showing them. The escape is
 * visible to a person, and inside JSON output it is the same JSON string it replaces.
 */
export function terminalSafe(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
