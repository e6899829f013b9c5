import { describe, expect, it } from 'vitest';
import { parseIpAddress, parseIpv6 } from './parse-ip-address.js';

describe('parseIpv6', () => {
  it.each<[string, number[]]>([
    ['::', [0, 0, 0, 0, 0, 0, 0, 0]],
    ['::1', [0, 0, 0, 0, 0, 0, 0, 1]],
    ['1::', [1, 0, 0, 0, 0, 0, 0, 0]],
    ['1:2:3:4:5:6:7:8', [1, 2, 3, 4, 5, 6, 7, 8]],
    ['1:2:3:4:5:6:7::', [1, 2, 3, 4, 5, 6, 7, 0]],
    ['1::8', [1, 0, 0, 0, 0, 0, 0, 8]],
    ['2001:DB8::ABCD', [0x2001, 0xdb8, 0, 0, 0, 0, 0, 0xabcd]],
    ['::ffff:127.0.0.1', [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]],
    ['::ffff:0:10.0.0.1', [0, 0, 0, 0, 0xffff, 0, 0x0a00, 1]],
    ['1:2:3:4:5:6:1.2.3.4', [1, 2, 3, 4, 5, 6, 0x0102, 0x0304]],
    ['[fe80::1]', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ['fe80::1%eth0', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
    ['[fe80::1%25eth0]', [0xfe80, 0, 0, 0, 0, 0, 0, 1]],
  ])('parses %s', (text, groups) => {
    expect(parseIpv6(text)).toEqual(groups);
  });

  it.each([
    '',
    ':',
    ':::',
    '1:::2',
    '1::2::3',
    ':1::',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1::2:3:4:5:6:7:8',
    '12345::',
    'g::1',
    '1.2.3.4::',
    '::1.2.3.4:5',
    '::256.0.0.1',
    '::1.2.3',
    'fe80::1%',
    '1:2:3:4:5:6:7:8:',
  ])('refuses %j', (text) => {
    expect(parseIpv6(text)).toBeUndefined();
  });

  it('reads a long hostile text in one pass', () => {
    expect(parseIpv6(':'.repeat(100_000))).toBeUndefined();
    expect(parseIpv6(`${'1:'.repeat(50_000)}1`)).toBeUndefined();
  });
});

describe('parseIpAddress', () => {
  it('parses IPv4 dotted quads into one number', () => {
    expect(parseIpAddress('127.0.0.1')).toEqual({ family: 4, value: 0x7f000001 });
    expect(parseIpAddress('255.255.255.255')).toEqual({ family: 4, value: 0xffffffff });
  });

  it.each(['256.0.0.1', '1.2.3', '1.2.3.4.5', '1..2.3', '1.2.3.4 ', '0x7f.0.0.1', '1234.0.0.1', 'example.com'])(
    'refuses %j',
    (text) => {
      expect(parseIpAddress(text)).toBeUndefined();
    },
  );
});
