import { describe, expect, it } from 'vitest';
import { WarningThrottle } from './warning-throttle.js';

describe('WarningThrottle', () => {
  it('lets one warning per key through each interval and counts the ones held back', () => {
    let now = 1_000;
    const throttle = new WarningThrottle(60_000, () => now);
    expect(throttle.take('a')).toBe(0);
    expect(throttle.take('a')).toBeUndefined();
    expect(throttle.take('b')).toBe(0);
    now += 59_999;
    expect(throttle.take('a')).toBeUndefined();
    now += 1;
    expect(throttle.take('a')).toBe(2);
    expect(throttle.take('a')).toBeUndefined();
    now += 120_000;
    expect(throttle.take('a')).toBe(1);
    expect(throttle.take('b')).toBe(0);
  });
});
