import { escapeHtml } from './html.js';

/** Image types the run page shows inline; anything else stays text. */
const SHOWN_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
/** Largest base64 text of one image the page embeds (about 512 KB decoded). */
export const MAX_SHOWN_IMAGE_CHARS = 700_000;
/** Most images shown for one tool call. */
const MAX_SHOWN_IMAGES = 8;
// One character class, no nesting: linear on any input.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

interface FoundImage {
  mediaType: string;
  data: string;
}

/**
 * The images a tool result holds, in either form a run keeps: the tool's own output
 * (`{ type: 'mcp-media', images: [{ mediaType, data }] }`) or what the model was sent
 * (`[{ type: 'image-data', mediaType, data }]`).
 */
function findImages(output: unknown): FoundImage[] {
  const items: unknown[] =
    typeof output === 'object' && output !== null && (output as { type?: unknown }).type === 'mcp-media'
      ? ((output as { images?: unknown }).images as unknown[])
      : Array.isArray(output)
        ? output.filter((item) => (item as { type?: unknown } | null)?.type === 'image-data')
        : [];
  const found: FoundImage[] = [];
  for (const item of Array.isArray(items) ? items : []) {
    const { mediaType, data } = (item ?? {}) as { mediaType?: unknown; data?: unknown };
    if (typeof mediaType === 'string' && typeof data === 'string') found.push({ mediaType, data });
  }
  return found;
}

/**
 * `<img>` tags for the images of a tool result: `data:` URLs only (the page's CSP allows no other
 * image source), of the usual image types, valid base64 and at most {@link MAX_SHOWN_IMAGE_CHARS}
 * each; an image that fails any of these is named instead of shown.
 */
export function toolOutputImages(output: unknown): string {
  const images = findImages(output).slice(0, MAX_SHOWN_IMAGES);
  if (images.length === 0) return '';
  const tags = images.map((image) => {
    if (!SHOWN_TYPES.has(image.mediaType) || image.data.length > MAX_SHOWN_IMAGE_CHARS || !BASE64.test(image.data)) {
      return `<span class="muted">[${escapeHtml(image.mediaType)} image, ${image.data.length} characters, not shown]</span>`;
    }
    return `<img class="tool-image" alt="image result" src="data:${escapeHtml(image.mediaType)};base64,${escapeHtml(image.data)}">`;
  });
  return `<div class="tool-images">${tags.join('')}</div>`;
}

/** A tool result with each image's data replaced by its size, for the text block beside the images. */
export function withoutImageData(output: unknown): unknown {
  if (findImages(output).length === 0) return output;
  return JSON.parse(
    JSON.stringify(output, (key, value: unknown) =>
      key === 'data' && typeof value === 'string' ? `[${value.length} characters of base64]` : value,
    ),
  ) as unknown;
}
