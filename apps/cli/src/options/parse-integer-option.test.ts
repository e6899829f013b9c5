import { InvalidArgumentError } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseIntegerOption } from './parse-integer-option.js';

describe('parseIntegerOption', () => {
  it('takes whole numbers within bounds', () => {
    const parse = parseIntegerOption({ min: 1, max: 200 });
    expect(parse('1')).toBe(1);
    expect(parse(' 200 ')).toBe(200);
  });

  it('refuses everything else with a message naming what is expected', () => {
    const parse = parseIntegerOption({ min: 1, max: 200, unit: 'steps' });
    for (const value of ['abc', '', '1.5', '-3', '1e3', '0', '201', 'NaN', 'Infinity', '0x10', '9'.repeat(40)]) {
      expect(() => parse(value), value).toThrow(InvalidArgumentError);
    }
    expect(() => parse('abc')).toThrow(/whole number of steps from 1 to 200/);
  });
});
