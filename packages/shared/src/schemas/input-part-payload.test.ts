import { describe, expect, it } from 'vitest';
import { runSpecSchema } from './run-spec.js';

const png = 'iVBORw0KGgo=';

function issuesOf(part: Record<string, unknown>, role = 'user') {
  const parsed = runSpecSchema.safeParse({
    assistant: { model: 'openai:gpt-4o-mini' },
    input: {
      messages: [
        { role, content: [{ type: 'text', text: 'look' }, part] },
        // Input may not end with an assistant message.
        ...(role === 'assistant' ? [{ role: 'user', content: 'go on' }] : []),
      ],
    },
  });
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
}

describe('image and file part payloads', () => {
  it('accepts base64, base64 data: URLs and http(s) URLs, as strings or URL objects', () => {
    for (const image of [
      png,
      'iVBORw0KGgo',
      'a-_b',
      'iVBORw0K\nGgo=',
      `data:image/png;base64,${png}`,
      'https://example.com/cat.png',
      'http://example.com/cat.png?size=2',
      new URL('https://example.com/cat.png'),
    ]) {
      expect(issuesOf({ type: 'image', image }), String(image)).toEqual([]);
    }
    expect(issuesOf({ type: 'image', image: png, mediaType: 'image/png' })).toEqual([]);
    expect(issuesOf({ type: 'file', data: png, mediaType: 'application/pdf' })).toEqual([]);
    expect(issuesOf({ type: 'file', data: 'https://example.com/a.pdf', mediaType: 'application/pdf' })).toEqual([]);
    expect(issuesOf({ type: 'file', data: png, mediaType: 'image/*' }, 'assistant')).toEqual([]);
  });

  it('refuses a payload that is neither base64 nor a readable URL, naming the field', () => {
    for (const image of [
      'not-a-url',
      'not base64!',
      '',
      'abcde',
      'file:///etc/passwd',
      'ftp://example.com/cat.png',
      'javascript:alert(1)',
      'data:image/png,not-base64',
      'data:;base64,AAAA',
      'data:image/png;base64,@@@@',
      new URL('file:///etc/passwd'),
      42,
      { url: 'https://example.com' },
      [1, 2, 3],
    ]) {
      expect(issuesOf({ type: 'image', image }), String(image)).toEqual(['input.messages.0.content.1.image']);
    }
    expect(issuesOf({ type: 'file', data: 'not-a-url', mediaType: 'application/pdf' })).toEqual([
      'input.messages.0.content.1.data',
    ]);
  });

  it('refuses a media type that is not type/subtype', () => {
    for (const mediaType of ['pdf', 'application/', '../../x', 'text/plain; charset=utf-8', 'a/b'.repeat(100), 7]) {
      expect(issuesOf({ type: 'file', data: png, mediaType }), String(mediaType)).toEqual([
        'input.messages.0.content.1.mediaType',
      ]);
    }
    expect(issuesOf({ type: 'image', image: png, mediaType: 'png' })).toEqual(['input.messages.0.content.1.mediaType']);
  });
});

describe('images and files in tool results', () => {
  const call = { type: 'tool-call', toolCallId: 'c1', toolName: 'shot', input: {} };
  function outputIssues(value: unknown[]) {
    const parsed = runSpecSchema.safeParse({
      assistant: { model: 'openai:gpt-4o-mini' },
      input: {
        messages: [
          { role: 'user', content: 'take a screenshot' },
          { role: 'assistant', content: [call] },
          {
            role: 'tool',
            content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'shot', output: { type: 'content', value } }],
          },
        ],
      },
    });
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
  }

  it('accepts base64 data and http(s) or data: URLs', () => {
    expect(
      outputIssues([
        { type: 'text', text: 'here' },
        { type: 'image-data', data: png, mediaType: 'image/png' },
        { type: 'file-data', data: png, mediaType: 'application/pdf' },
        { type: 'image-url', url: 'https://example.com/a.png' },
        { type: 'file-url', url: `data:application/pdf;base64,${png}` },
      ]),
    ).toEqual([]);
  });

  it('refuses other URLs, data that is not base64 and bad media types, naming the item', () => {
    const at = (index: number, field: string) => `input.messages.2.content.0.output.value.${index}.${field}`;
    expect(outputIssues([{ type: 'image-url', url: 'file:///etc/passwd' }])).toEqual([at(0, 'url')]);
    expect(outputIssues([{ type: 'file-url', url: png }])).toEqual([at(0, 'url')]);
    expect(
      outputIssues([
        { type: 'text', text: 'x' },
        { type: 'image-data', data: 'not base64', mediaType: 'image/png' },
      ]),
    ).toEqual([at(1, 'data')]);
    expect(outputIssues([{ type: 'file-data', data: png, mediaType: 'pdf' }])).toEqual([at(0, 'mediaType')]);
  });
});
