import { describe, expect, it } from 'vitest';
import { DEFAULT_TOOL_RESULT_MAX_BYTES, limitToolResultText } from './limit-tool-result.js';
import { mcpToolOutput } from './mcp-tool-output.js';

/** The kept text and the note of a cut result. */
function split(text: string): { kept: string; note: string } {
  const at = text.lastIndexOf('\n[tool result truncated: ');
  return { kept: text.slice(0, at), note: text.slice(at + 1) };
}

describe('limitToolResultText', () => {
  it('leaves text within the limit untouched, counted in bytes, not characters', () => {
    expect(limitToolResultText('hello', 5)).toBe('hello');
    expect(limitToolResultText('é'.repeat(4), 8)).toBe('éééé');
    expect(limitToolResultText('', 1)).toBe('');
  });

  it('keeps the first bytes and names the bytes dropped and the limit', () => {
    const { kept, note } = split(limitToolResultText('a'.repeat(100), 10));
    expect(kept).toBe('a'.repeat(10));
    expect(note).toBe(
      '[tool result truncated: 90 of 100 bytes dropped; the limit is 10 bytes (AGENTQ_TOOL_RESULT_MAX_BYTES)]',
    );
  });

  it('never splits a multi-byte character at the boundary', () => {
    // 'é' takes 2 bytes, '€' 3, '😀' 4 (a surrogate pair): the limit falls inside each.
    for (const [char, size] of [
      ['é', 2],
      ['€', 3],
      ['😀', 4],
    ] as const) {
      for (let offset = 1; offset < size; offset += 1) {
        const text = `${'a'.repeat(7)}${char.repeat(20)}`;
        const limit = 7 + 2 * size + offset;
        const { kept, note } = split(limitToolResultText(text, limit));
        expect(kept, `${char} +${offset}`).toBe(`${'a'.repeat(7)}${char.repeat(2)}`);
        expect(kept).not.toContain('\uFFFD');
        const total = Buffer.byteLength(text);
        expect(note).toContain(`${total - (7 + 2 * size)} of ${total} bytes dropped`);
      }
    }
  });

  it('keeps nothing but the note when the first character alone is over the limit', () => {
    const { kept, note } = split(limitToolResultText('😀😀', 3));
    expect(kept).toBe('');
    expect(note).toContain('8 of 8 bytes dropped; the limit is 3 bytes');
  });

  it('cuts a very long text without losing the note', () => {
    const text = 'x'.repeat(3 * DEFAULT_TOOL_RESULT_MAX_BYTES);
    const limited = limitToolResultText(text, DEFAULT_TOOL_RESULT_MAX_BYTES);
    expect(Buffer.byteLength(split(limited).kept)).toBe(DEFAULT_TOOL_RESULT_MAX_BYTES);
    expect(limited).toContain(`${2 * DEFAULT_TOOL_RESULT_MAX_BYTES} of ${3 * DEFAULT_TOOL_RESULT_MAX_BYTES} bytes`);
  });
});

describe('mcpToolOutput with a text limit', () => {
  it('cuts structured content by the size of its JSON', () => {
    const structuredContent = { rows: Array.from({ length: 50 }, (_, index) => ({ index, name: 'ü'.repeat(10) })) };
    const json = JSON.stringify(structuredContent);
    const output = mcpToolOutput({ content: [], structuredContent }, undefined, 100);
    expect(typeof output).toBe('string');
    const { kept, note } = split(output as string);
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(100);
    expect(json.startsWith(kept)).toBe(true);
    expect(note).toContain(`of ${Buffer.byteLength(json)} bytes dropped; the limit is 100 bytes`);
  });

  it('leaves a result within the limit as it was', () => {
    const result = { content: [{ type: 'text', text: 'fine' }], structuredContent: { ok: true } };
    expect(mcpToolOutput(result, undefined, 4)).toBe('fine');
    expect(mcpToolOutput({ content: [], structuredContent: { ok: true } }, undefined, 11)).toBe('{"ok":true}');
  });

  it('cuts the text and the fallback of a result with images, keeping the images', () => {
    const png = Buffer.from('png bytes').toString('base64');
    const output = mcpToolOutput(
      {
        content: [
          { type: 'text', text: 'z'.repeat(500) },
          { type: 'image', mimeType: 'image/png', data: png },
        ],
      },
      undefined,
      50,
    );
    expect(output).toMatchObject({ type: 'mcp-media', images: [{ mediaType: 'image/png', data: png }] });
    if (typeof output === 'string') throw new Error('expected images');
    expect(split(output.text).kept).toBe('z'.repeat(50));
    expect(split(output.fallback).kept).toBe('z'.repeat(50));
    expect(output.fallback).toContain('the limit is 50 bytes');
  });
});
