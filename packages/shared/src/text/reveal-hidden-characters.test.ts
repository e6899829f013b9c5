import { describe, expect, it } from 'vitest';
import { revealHiddenCharacters } from './reveal-hidden-characters.js';

describe('revealHiddenCharacters', () => {
  it('writes C0 controls as escapes, carriage return and backspace included, and keeps tab and newline', () => {
    expect(revealHiddenCharacters('Deploy?\u001b]52;c;ZXZpbA==\u0007 \u001b[2J')).toBe(
      'Deploy?\\u001b]52;c;ZXZpbA==\\u0007 \\u001b[2J',
    );
    expect(revealHiddenCharacters('\u0000ok\rfake\bline\u001f')).toBe('\\u0000ok\\u000dfake\\u0008line\\u001f');
    expect(revealHiddenCharacters('a\tb\nc')).toBe('a\tb\nc');
    // A Windows line end hides nothing; a carriage return anywhere else rewrites the line.
    expect(revealHiddenCharacters('one\r\ntwo\r\n')).toBe('one\r\ntwo\r\n');
    expect(revealHiddenCharacters('safe\r\rrm -rf\r')).toBe('safe\\u000d\\u000drm -rf\\u000d');
    expect(revealHiddenCharacters('x\r\r\n')).toBe('x\\u000d\r\n');
  });

  it('writes DEL and the C1 controls as escapes', () => {
    expect(revealHiddenCharacters('a\u007fb\u0080c\u0085d\u009b31m\u009f')).toBe(
      'a\\u007fb\\u0080c\\u0085d\\u009b31m\\u009f',
    );
    // The first character after C1 is ordinary text.
    expect(revealHiddenCharacters('\u00a0é')).toBe('\u00a0é');
  });

  it('writes every bidi control as an escape', () => {
    const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
    for (const code of bidi) {
      const hex = code.toString(16).padStart(4, '0');
      expect(revealHiddenCharacters(`x${String.fromCharCode(code)}y`), hex).toBe(`x\\u${hex}y`);
    }
    expect(revealHiddenCharacters('notes/\u202Egnp.exe')).toBe('notes/\\u202egnp.exe');
  });

  it('writes the zero-width characters as escapes, but for the joiners that shape text', () => {
    expect(revealHiddenCharacters('a\u200bb\u2060e\ufefff')).toBe('a\\u200bb\\u2060e\\ufefff');
    // The joiner and non-joiner shape emoji sequences and several scripts: they stay.
    const family = '\u{1F468}\u200d\u{1F469}\u200d\u{1F467}';
    expect(revealHiddenCharacters(family)).toBe(family);
    expect(revealHiddenCharacters('\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645')).toBe(
      '\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645',
    );
  });

  it('writes the other default-ignorable characters as escapes: soft hyphen, fillers, tags', () => {
    expect(revealHiddenCharacters('pay\u00adpal \u3164 a\u2061b \u180e \u034f \u115f \uffa0')).toBe(
      'pay\\u00adpal \\u3164 a\\u2061b \\u180e \\u034f \\u115f \\uffa0',
    );
    // Tag characters spell text nobody sees: each is written out (as its two UTF-16 units).
    expect(revealHiddenCharacters('notes.png\u{E0072}\u{E006D}')).toBe('notes.png\\udb40\\udc72\\udb40\\udc6d');
    // The three subdivision flags are the tag sequences in use: they stay; a black flag followed by
    // any other tags does not hide them.
    const wales = '\u{1F3F4}\u{E0067}\u{E0062}\u{E0077}\u{E006C}\u{E0073}\u{E007F}';
    expect(revealHiddenCharacters(`flag ${wales}`)).toBe(`flag ${wales}`);
    expect(revealHiddenCharacters('\u{1F3F4}\u{E0065}\u{E0076}\u{E007F}')).toBe(
      '\u{1F3F4}\\udb40\\udc65\\udb40\\udc76\\udb40\\udc7f',
    );
    // Variation selectors choose how a character looks: they stay.
    expect(revealHiddenCharacters('\u{1F44D}\ufe0f \u845b\u{E0100}')).toBe('\u{1F44D}\ufe0f \u845b\u{E0100}');
  });

  it('leaves other text alone, neighbours of the ranges included', () => {
    const plain = 'plain text, é ✓ 日本語 \u00a0 \u200a \u2010 \u2029 \u2070 \ufefe 🙂 \\u001b';
    expect(revealHiddenCharacters(plain)).toBe(plain);
    // A generous bound for a busy machine: the point is that it returns, not how fast.
  }, 60_000);

  it('gives JSON text of the same value when applied to JSON', () => {
    const value = { message: 'x\u0085y\u001bz\u202e\\\u2066', [`k\u200b`]: 1 };
    const printed = revealHiddenCharacters(JSON.stringify(value));
    expect(printed).not.toMatch(/[\u0080-\u009f\u202e\u2066\u200b]/);
    expect(JSON.parse(printed)).toEqual(value);
  });

  it('returns for a megabyte of input, hidden characters or none', () => {
    const hostile = '\u001b\u202e'.repeat(512 * 1024);
    expect(revealHiddenCharacters(hostile)).toHaveLength(hostile.length * 6);
    const plain = 'a'.repeat(1024 * 1024);
    expect(revealHiddenCharacters(plain)).toBe(plain);
    // A generous bound for a busy machine: the point is that it returns, not how fast.
  }, 60_000);
});
