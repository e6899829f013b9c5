import { matchGlob } from '@agentq/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Reference: the textbook dynamic programme over (pattern position, text position), memoized.
 * Slow but obviously right, so the fast matcher is compared against it.
 */
function referenceMatch(pattern: string, text: string): boolean {
  const memo = new Map<number, boolean>();
  const at = (p: number, t: number): boolean => {
    const key = p * (text.length + 1) + t;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (p === pattern.length) result = t === text.length;
    else if (pattern[p] === '*') result = at(p + 1, t) || (t < text.length && at(p, t + 1));
    else result = t < text.length && pattern[p] === text[t] && at(p + 1, t + 1);
    memo.set(key, result);
    return result;
  };
  return at(0, 0);
}

// A small alphabet makes near-misses, repeats and overlaps common, which is where matchers break.
const patternArbitrary = fc.string({ unit: fc.constantFrom('a', 'b', '*', '.'), maxLength: 12 });
const textArbitrary = fc.string({ unit: fc.constantFrom('a', 'b', '.'), maxLength: 16 });

describe('the glob matcher (hole 4: regex blow-up in approval.requireFor)', () => {
  it('agrees with the reference on random patterns and names', () => {
    fc.assert(
      fc.property(patternArbitrary, textArbitrary, (pattern, text) => {
        expect(matchGlob(pattern, text)).toBe(referenceMatch(pattern, text));
      }),
      { numRuns: 5_000 },
    );
  });

  it('agrees with the reference on names built to match the pattern', () => {
    // Random texts rarely match long patterns; fill each star of a pattern with a random run to get
    // matching names, then compare on them and on a one-character change of them.
    fc.assert(
      fc.property(
        patternArbitrary,
        fc.array(textArbitrary, { minLength: 12, maxLength: 12 }),
        fc.nat(),
        (pattern, fills, cut) => {
          let index = 0;
          const text = pattern.replace(/\*/g, () => fills[index++ % fills.length] ?? '');
          expect(matchGlob(pattern, text)).toBe(true);
          const changed =
            text.length === 0 ? 'a' : text.slice(0, cut % text.length) + text.slice((cut % text.length) + 1);
          expect(matchGlob(pattern, changed)).toBe(referenceMatch(pattern, changed));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  // The matcher is linear in the pattern and the name; `npm run bench` times it (well under a
  // millisecond for this case). A regex built from the same pattern runs for longer than any test
  // timeout, so finishing at all is the assertion here.
  it('answers a 10 000-star pattern against a long near-miss name', () => {
    const pattern = `${'*'.repeat(10_000)}X`;
    const name = 'a'.repeat(10_000);
    expect(matchGlob(pattern, name)).toBe(false);
    expect(matchGlob(pattern, `${name}X`)).toBe(true);
    expect(matchGlob(`${'*a'.repeat(5_000)}*X`, `${name}X`)).toBe(true);
    expect(matchGlob(`${'*a'.repeat(5_000)}*X`, `${'a'.repeat(4_999)}X`)).toBe(false);
  });
});
