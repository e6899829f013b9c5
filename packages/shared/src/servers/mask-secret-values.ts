/** What a masked secret value is replaced with. */
export const SECRET_MASK = '[redacted]';

/** Longest server error text agentq stores or hands on, in characters. */
export const MAX_SERVER_ERROR_LENGTH = 2_000;

// Shorter base64 fragments would match ordinary text by chance.
const minimumFragmentLength = 8;
// Variants are computed once per secret; the bound only guards against a caller that feeds
// endless distinct values.
const variantCache = new Map<string, readonly string[]>();
const maxCachedSecrets = 1_000;

/**
 * The forms in which a secret value travels and can be echoed back, longest first:
 * - raw, and as JSON string content: escaped once, escaped twice (JSON text quoted inside JSON,
 *   as a tool result that carries another answer's body), and with every non-ASCII character as
 *   `\uXXXX` (what many JSON writers other than JavaScript's emit);
 * - hex, lower- and upper-case, of its UTF-8 bytes;
 * - percent-encoded by `encodeURIComponent` and by `encodeURI`, with upper- or lower-case hex,
 *   and as the URL parser encodes it in a path and in a query;
 * - form-encoded (`application/x-www-form-urlencoded`, spaces as `+`);
 * - base64, standard and URL-safe, of the value alone;
 * - base64 of the value embedded in a longer text (a Basic `user:password` header, a token inside
 *   a JSON blob): there the value's encoding depends on its offset modulo 3, and its first and last
 *   characters mix with the neighbouring bytes. For each of the three offsets, the characters that
 *   encode whole 3-byte groups of the value alone are the same wherever it sits, so those are
 *   masked. At most two bytes at each end stay visible in encoded form; that is the price of not
 *   knowing the neighbours.
 *
 * Every encoding applies to the raw value and to its JSON-escaped form.
 */
export function secretValueVariants(secret: string): readonly string[] {
  const cached = variantCache.get(secret);
  if (cached) return cached;
  const jsonEscaped = JSON.stringify(secret).slice(1, -1);
  const forms = new Set<string>([
    secret,
    jsonEscaped,
    JSON.stringify(jsonEscaped).slice(1, -1),
    jsonEscaped.replace(
      /[\u0080-\uffff]/g,
      (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
    ),
  ]);
  // A value inside a JSON text that is then encoded (a JSON body echoed in a query, in hex or in
  // base64) is encoded in its escaped form, so each encoding is applied to both.
  for (const text of new Set([secret, jsonEscaped])) addEncodedForms(forms, text);
  for (const form of [...forms]) {
    if (/[+/=]/.test(form) && form !== secret) forms.add(form.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  const variants = [...forms].filter((form) => form.length >= 4).sort((a, b) => b.length - a.length);
  if (variantCache.size >= maxCachedSecrets) variantCache.clear();
  variantCache.set(secret, variants);
  return variants;
}

function addEncodedForms(forms: Set<string>, secret: string): void {
  for (const encoded of [encodeURIComponent(secret), encodeURI(secret)]) {
    forms.add(encoded);
    forms.add(encoded.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()));
  }
  forms.add(new URLSearchParams({ v: secret }).toString().slice(2));
  // The WHATWG URL parser, which fetch uses, percent-encodes a path and a query each with its own
  // set (`|` stays as it is, unlike in encodeURI). A `#` or `?` in the value would cut these forms
  // short; only whole ones are kept.
  for (const [base, part] of [
    ['http://h/', 'pathname'],
    ['http://h/?', 'search'],
  ] as const) {
    const encoded = new URL(base + secret)[part].slice(1);
    if (encoded.length >= secret.length) forms.add(encoded);
  }
  forms.add(encodeURIComponent(secret).replace(/%20/g, '+'));
  const bytes = Buffer.from(secret, 'utf8');
  const hex = bytes.toString('hex');
  forms.add(hex);
  forms.add(hex.toUpperCase());
  const whole = bytes.toString('base64');
  forms.add(whole);
  forms.add(whole.replace(/=+$/, ''));
  for (let skip = 0; skip < 3; skip += 1) {
    const groups = Math.floor((bytes.length - skip) / 3);
    if (groups <= 0) continue;
    const middle = bytes.subarray(skip, skip + groups * 3).toString('base64');
    if (middle.length >= minimumFragmentLength) forms.add(middle);
  }
}

/**
 * Replaces every occurrence of the given secret values (for example the `secretValues` of
 * {@link resolveSecrets}) in `text`, in each of their {@link secretValueVariants}: raw,
 * percent-encoded, form-encoded and base64. Values shorter than 4 characters are left alone:
 * masking them would shred ordinary text without protecting anything.
 */
export function maskSecretValues(text: string, secretValues: Iterable<string>): string {
  let out = text;
  for (const secret of secretValues) {
    if (secret.length < 4) continue;
    for (const form of secretValueVariants(secret)) {
      if (out.includes(form)) out = out.split(form).join(SECRET_MASK);
    }
  }
  return out;
}

/**
 * An MCP server's error text, safe to store and to show: secrets masked in every form, then cut to
 * `maxLength` characters. Masking comes first, so that the cut can never leave half a secret.
 */
export function maskServerError(
  text: string,
  secretValues: Iterable<string>,
  maxLength: number = MAX_SERVER_ERROR_LENGTH,
): string {
  const masked = maskSecretValues(text, secretValues);
  if (masked.length <= maxLength) return masked;
  return `${masked.slice(0, maxLength)}… (${masked.length - maxLength} more characters cut)`;
}

/**
 * A JSON-like value with {@link maskSecretValues} applied to every string in it (keys included),
 * down to `maxDepth` levels; deeper parts are replaced by the mask rather than passed on unread.
 * For an MCP server's error result, which goes to the model, the checkpoint and the run result.
 */
export function maskSecretsDeep<T>(value: T, secretValues: readonly string[], maxDepth = 16): T {
  if (secretValues.length === 0) return value;
  const walk = (current: unknown, depth: number): unknown => {
    if (typeof current === 'string') return maskSecretValues(current, secretValues);
    if (current === null || typeof current !== 'object') return current;
    if (depth >= maxDepth) return SECRET_MASK;
    if (Array.isArray(current)) return current.map((item) => walk(item, depth + 1));
    return Object.fromEntries(
      Object.entries(current).map(([key, member]) => [maskSecretValues(key, secretValues), walk(member, depth + 1)]),
    );
  };
  return walk(value, 0) as T;
}
