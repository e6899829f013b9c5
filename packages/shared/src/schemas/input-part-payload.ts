/** What is wrong with one field of an image or file part, or `null`. */
export interface PartPayloadIssue {
  field: string;
  message: string;
}

// Standard base64 or base64url, padded or not: what the model loop decodes.
const base64Pattern = /^[A-Za-z0-9+/_-]+={0,2}$/;
// `type/subtype`, the subtype may be `*` (`image/*`); parameters are not needed for a part.
const mediaTypePattern = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/(?:\*|[a-z0-9][a-z0-9!#$&^_.+-]*)$/i;
const maxMediaTypeLength = 255;

/**
 * Checks the payload of an `image` part (`image`, optional `mediaType`) or a `file` part (`data`,
 * `mediaType`). The payload is a base64 string, a base64 `data:` URL or an `http(s)` URL (a string,
 * or a `URL` object before the spec is serialized). Anything else would fail only when the model
 * loop decodes it, on every attempt and without naming the part.
 */
export function findPartPayloadIssue(part: Record<string, unknown>, type: 'image' | 'file'): PartPayloadIssue | null {
  const field = type === 'image' ? 'image' : 'data';
  const payloadIssue = payloadProblem(part[field]);
  if (payloadIssue) return { field, message: `${type} part ${field} ${payloadIssue}` };
  const mediaType = part.mediaType;
  if (mediaType !== undefined && !isMediaType(mediaType)) {
    return { field: 'mediaType', message: `${type} part mediaType must look like type/subtype, for example image/png` };
  }
  return null;
}

const urlItemTypes = new Set(['image-url', 'file-url']);
const dataItemTypes = new Set(['image-data', 'file-data', 'media']);

/**
 * Checks the images and files of a tool result's `content` output: an `image-url` or `file-url`
 * item's `url` is an http(s) URL or a base64 `data:` URL, an `image-data`, `file-data` or `media`
 * item's `data` is base64 with a `type/subtype` media type. The path is relative to the part.
 */
export function findToolOutputIssue(
  output: Record<string, unknown>,
): { path: (string | number)[]; message: string } | null {
  if (output.type !== 'content' || !Array.isArray(output.value)) return null;
  for (const [index, item] of (output.value as unknown[]).entries()) {
    const record = (item ?? {}) as Record<string, unknown>;
    const type = String(record.type);
    const path = ['output', 'value', index];
    if (urlItemTypes.has(type)) {
      const problem =
        typeof record.url === 'string' && !isBase64(record.url) ? payloadProblem(record.url) : 'is not a URL';
      if (problem) return { path: [...path, 'url'], message: `${type} url ${problem}` };
    } else if (dataItemTypes.has(type)) {
      if (typeof record.data !== 'string' || !isBase64(record.data)) {
        return { path: [...path, 'data'], message: `${type} data must be base64` };
      }
      if (!isMediaType(record.mediaType)) {
        return { path: [...path, 'mediaType'], message: `${type} mediaType must look like type/subtype` };
      }
    }
  }
  return null;
}

function payloadProblem(value: unknown): string | null {
  const text = value instanceof URL ? value.href : value;
  if (typeof text !== 'string' || text === '') {
    return 'must be a base64 string, a data: URL or an http(s) URL';
  }
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    // Not a URL: the model loop reads it as base64.
  }
  if (url === undefined) return isBase64(text) ? null : 'is neither base64 nor a URL';
  if (url.protocol === 'http:' || url.protocol === 'https:') return null;
  if (url.protocol === 'data:') return dataUrlProblem(text);
  return `has the URL scheme ${url.protocol.slice(0, 20)}; only http:, https: and data: are read`;
}

function dataUrlProblem(text: string): string | null {
  const comma = text.indexOf(',');
  const header = comma < 0 ? '' : text.slice('data:'.length, comma);
  const [mediaType, ...parameters] = header.split(';');
  if (comma < 0 || parameters.at(-1)?.toLowerCase() !== 'base64') {
    return 'must be a base64 data: URL (data:<mediaType>;base64,<data>)';
  }
  if (!isMediaType(mediaType)) return 'must be a data: URL with a media type (data:image/png;base64,...)';
  return isBase64(text.slice(comma + 1)) ? null : 'is a data: URL whose content is not base64';
}

function isMediaType(value: unknown): boolean {
  return typeof value === 'string' && value.length <= maxMediaTypeLength && mediaTypePattern.test(value);
}

function isBase64(text: string): boolean {
  // What `atob` decodes: ASCII whitespace (line breaks) is skipped, and a length of 4n+1 once the
  // padding is gone is refused.
  const compact = text.replace(/[\t\n\f\r ]+/g, '');
  return base64Pattern.test(compact) && compact.replace(/=+$/, '').length % 4 !== 1;
}
