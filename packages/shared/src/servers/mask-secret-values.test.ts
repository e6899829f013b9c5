import { describe, expect, it } from 'vitest';
import {
  maskSecretsDeep,
  maskSecretValues,
  maskServerError,
  SECRET_MASK,
  secretValueVariants,
} from './mask-secret-values.js';

const secret = 'p@ss w/rd+~|:ü&=42';

describe('maskSecretValues', () => {
  it('masks every occurrence of each value and leaves very short values alone', () => {
    expect(maskSecretValues('token s3cr3t in s3cr3t, id ab', ['s3cr3t', 'ab'])).toBe(
      `token ${SECRET_MASK} in ${SECRET_MASK}, id ab`,
    );
  });

  it('masks percent-encoded, form-encoded, JSON-escaped and base64 forms', () => {
    const forms = [
      encodeURIComponent(secret),
      encodeURIComponent(secret).toLowerCase(),
      encodeURI(secret),
      new URLSearchParams({ k: secret }).toString().slice(2),
      encodeURIComponent(secret).replace(/%20/g, '+'),
      JSON.stringify(`"${secret}\\`).slice(1, -1),
      Buffer.from(secret).toString('base64'),
      Buffer.from(secret).toString('base64url'),
      new URL(`http://h/${secret}`).pathname.slice(1),
      new URL(`http://h/?${secret}`).search.slice(1),
    ];
    for (const form of forms) {
      const masked = maskSecretValues(`GET /x?k=${form} failed`, [secret]);
      expect(masked, form).toContain(SECRET_MASK);
      expect(masked, form).not.toContain(form);
    }
  });

  it('masks hex, doubly JSON-escaped and \\u-escaped forms', () => {
    const quoted = 'k3y"with\\quote-ü';
    const forms = [
      Buffer.from(quoted).toString('hex'),
      Buffer.from(quoted).toString('hex').toUpperCase(),
      JSON.stringify(JSON.stringify(quoted).slice(1, -1)).slice(1, -1),
      'k3y\\"with\\\\quote-\\u00fc',
    ];
    for (const form of forms) {
      const masked = maskSecretValues(`answer ${form} end`, [quoted]);
      expect(masked, form).toBe(`answer ${SECRET_MASK} end`);
    }
  });

  it('masks the stable middle of base64 at every offset, standard and url-safe', () => {
    for (let offset = 0; offset < 6; offset += 1) {
      const embedded = Buffer.from(`${'u'.repeat(offset)}:${secret}:tail`);
      for (const encoding of ['base64', 'base64url'] as const) {
        const text = `Authorization: Basic ${embedded.toString(encoding)}`;
        const masked = maskSecretValues(text, [secret]);
        expect(masked, `${encoding} at ${offset}`).toContain(SECRET_MASK);
        // Whatever is left decodes to at most two bytes of the secret at each end.
        const leftovers = masked.split(SECRET_MASK).map((part) => part.replace(/^.*Basic /, ''));
        for (const part of leftovers) {
          expect(Buffer.from(part, encoding).toString('latin1')).not.toContain(secret.slice(2, -2));
        }
      }
    }
  });

  it('lists variants longest first and never shorter than 4 characters', () => {
    const variants = secretValueVariants(secret);
    expect(variants.every((variant) => variant.length >= 4)).toBe(true);
    expect([...variants].sort((a, b) => b.length - a.length)).toEqual(variants);
  });
});

describe('maskServerError', () => {
  it('masks first, then cuts to the bound', () => {
    const long = `${'x'.repeat(1_995)}${encodeURIComponent(secret)}${'y'.repeat(5_000)}`;
    const bounded = maskServerError(long, [secret], 2_000);
    expect(bounded.startsWith(`${'x'.repeat(1_995)}[reda`)).toBe(true);
    expect(bounded.length).toBeLessThan(2_100);
    expect(bounded).not.toContain(encodeURIComponent(secret).slice(0, 8));
    expect(maskServerError('short', [secret])).toBe('short');
  });
});

describe('maskSecretsDeep', () => {
  it('masks every string of an error result, keys included, and bounds the depth', () => {
    const result = {
      isError: true,
      content: [{ type: 'text', text: `bad path /x/${encodeURIComponent(secret)}` }],
      structuredContent: { [secret]: [Buffer.from(secret).toString('base64')], count: 3 },
    };
    const masked = maskSecretsDeep(result, [secret]);
    expect(JSON.stringify(masked)).not.toContain(encodeURIComponent(secret));
    expect(JSON.stringify(masked)).not.toContain(Buffer.from(secret).toString('base64'));
    expect(masked.structuredContent.count).toBe(3);
    expect(masked.isError).toBe(true);
    let deep: unknown = secret;
    for (let level = 0; level < 50; level += 1) deep = [deep];
    expect(JSON.stringify(maskSecretsDeep(deep, [secret]))).not.toContain(secret);
    expect(maskSecretsDeep(result, [])).toBe(result);
  });
});
