import { describe, expect, it } from 'vitest';
import { MAX_SHOWN_IMAGE_CHARS, toolOutputImages, withoutImageData } from './tool-output-images.js';

const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describe('toolOutputImages', () => {
  it('shows the images of a tool output and of a model output as data: URLs', () => {
    const tool = toolOutputImages({ type: 'mcp-media', text: 'x', images: [{ mediaType: 'image/png', data: png }] });
    expect(tool).toContain(`<img class="tool-image" alt="image result" src="data:image/png;base64,${png}">`);
    const model = toolOutputImages([
      { type: 'text', text: 'x' },
      { type: 'image-data', mediaType: 'image/png', data: png },
    ]);
    expect(model).toContain(`src="data:image/png;base64,${png}"`);
    expect(toolOutputImages('plain text')).toBe('');
  });

  it('names instead of shows an image of another type, too large, or not base64, and escapes what it names', () => {
    const html = toolOutputImages({
      type: 'mcp-media',
      images: [
        { mediaType: 'image/svg+xml"><script>', data: png },
        { mediaType: 'image/png', data: 'A'.repeat(MAX_SHOWN_IMAGE_CHARS + 4) },
        { mediaType: 'image/png', data: '"><script>alert(1)</script>' },
      ],
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<script>');
    expect(html.match(/not shown/g)).toHaveLength(3);
  });

  it('drops the image data from the text beside the images', () => {
    const text = JSON.stringify(
      withoutImageData({ type: 'mcp-media', text: 'x', images: [{ mediaType: 'image/png', data: png }] }),
    );
    expect(text).not.toContain(png);
    expect(text).toContain(`${png.length} characters of base64`);
  });
});
