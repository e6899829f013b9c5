import type { Tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { mcpToolModelOutput, mcpToolOutput, withTextOnlyToolResults } from './mcp-tool-output.js';

const png = Buffer.from('a tiny png, as far as this test cares').toString('base64');
const callOptions = { toolCallId: 'c1', input: {} };

describe('mcpToolOutput', () => {
  it('keeps a result without images as the same text as before', () => {
    const result = {
      content: [
        { type: 'text', text: 'hello' },
        { type: 'audio', mimeType: 'audio/wav', data: 'AAAA' },
      ],
    };
    expect(mcpToolOutput(result)).toBe('hello\n[audio: audio/wav, not shown]');
  });

  it('hands images within the budget to the model as image parts after the text', () => {
    const output = mcpToolOutput({
      content: [
        { type: 'text', text: 'the chart' },
        { type: 'image', mimeType: 'image/png', data: png },
      ],
    });
    expect(output).toMatchObject({
      type: 'mcp-media',
      text: 'the chart',
      images: [{ mediaType: 'image/png', data: png }],
    });
    expect(mcpToolModelOutput({ ...callOptions, output })).toEqual({
      type: 'content',
      value: [
        { type: 'text', text: 'the chart' },
        { type: 'image-data', data: png, mediaType: 'image/png' },
      ],
    });
  });

  it('describes images past the budget or of a type providers refuse, instead of sending them', () => {
    const bytes = Buffer.from(png, 'base64').length;
    const output = mcpToolOutput(
      {
        content: [
          { type: 'image', mimeType: 'image/png', data: png },
          { type: 'image', mimeType: 'image/png', data: png },
          { type: 'image', mimeType: 'image/tiff', data: png },
        ],
      },
      bytes + 1,
    );
    expect(output).toMatchObject({ images: [{ mediaType: 'image/png' }] });
    const text = typeof output === 'string' ? output : output.text;
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toContain('image/tiff');
  });

  it('gives a model that cannot take images the text fallback, and leaves other tools alone', () => {
    const output = mcpToolOutput({ content: [{ type: 'image', mimeType: 'image/png', data: png }] });
    const mcp = { description: 'x', inputSchema: {}, toModelOutput: mcpToolModelOutput } as unknown as Tool;
    const other = { description: 'y', inputSchema: {} } as unknown as Tool;
    const textOnly = withTextOnlyToolResults({ mcp, other });
    expect(textOnly.other).toBe(other);
    expect(textOnly.mcp?.toModelOutput?.({ ...callOptions, output })).toEqual({
      type: 'text',
      value: '[image: image/png, not shown]',
    });
    expect(textOnly.mcp?.toModelOutput?.({ ...callOptions, output: 'plain' })).toEqual({
      type: 'text',
      value: 'plain',
    });
  });

  it('keeps one text-only copy per tool, shared by every tool set that shows the tool', () => {
    const mcp = { description: 'x', inputSchema: {}, toModelOutput: mcpToolModelOutput } as unknown as Tool;
    const another = { description: 'z', inputSchema: {}, toModelOutput: mcpToolModelOutput } as unknown as Tool;
    const first = withTextOnlyToolResults({ mcp, another });
    const second = withTextOnlyToolResults({ renamed: mcp });
    expect(second.renamed).toBe(first.mcp);
    expect(first.another).not.toBe(first.mcp);
    expect(first.another?.description).toBe('z');
    expect(first.mcp?.description).toBe('x');
  });
});
