/** Default of `AGENTQ_TOOL_RESULT_MAX_BYTES`: the most bytes of text one MCP tool result keeps. */
export const DEFAULT_TOOL_RESULT_MAX_BYTES = 1_048_576;

/**
 * `text` kept to its first `maxBytes` bytes of UTF-8, cut before a character that would not fit
 * whole, and followed by a note naming how many bytes were dropped and the limit, so the model and
 * whoever reads the journal can tell the result is incomplete. Text within the limit is returned as
 * it is. Only a prefix of the text is ever encoded, so a result of hundreds of megabytes costs no
 * copy of itself.
 */
export function limitToolResultText(text: string, maxBytes: number): string {
  // Every UTF-16 unit takes at least one byte: text this short fits without counting.
  if (text.length <= maxBytes / 3) return text;
  const total = Buffer.byteLength(text, 'utf8');
  if (total <= maxBytes) return text;
  // The first `maxBytes` units hold at least `maxBytes` bytes (the text is longer than that).
  const head = Buffer.from(text.slice(0, maxBytes), 'utf8');
  let end = Math.min(maxBytes, head.length);
  // Back up over continuation bytes (10xxxxxx) to the start of the character the limit splits.
  while (end > 0 && end < head.length && ((head[end] as number) & 0xc0) === 0x80) end -= 1;
  const kept = head.subarray(0, end).toString('utf8');
  return `${kept}\n[tool result truncated: ${total - end} of ${total} bytes dropped; the limit is ${maxBytes} bytes (AGENTQ_TOOL_RESULT_MAX_BYTES)]`;
}
