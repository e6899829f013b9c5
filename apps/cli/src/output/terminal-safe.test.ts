import { describe, expect, it } from 'vitest';
import { terminalSafe } from './terminal-safe.js';

describe('terminalSafe', () => {
  it('writes terminal controls as visible escapes and keeps tabs, newlines and other text', () => {
    expect(terminalSafe('Deploy?\u001b]52;c;ZXZpbA==\u0007 \u001b[2J')).toBe(
      'Deploy?\\u001b]52;c;ZXZpbA==\\u0007 \\u001b[2J',
    );
    expect(terminalSafe('ok\rfake\bline \u009b31m')).toBe('ok\\u000dfake\\u0008line \\u009b31m');
    expect(terminalSafe('a\tb\nc é ✓')).toBe('a\tb\nc é ✓');
  });

  it('leaves JSON the same JSON', () => {
    const value = { message: 'x\u0085y\u001bz' };
    const printed = terminalSafe(JSON.stringify(value));
    // eslint-disable-next-line no-control-regex -- the assertion is about control characters
    expect(printed).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(JSON.parse(printed)).toEqual(value);
  });
});
