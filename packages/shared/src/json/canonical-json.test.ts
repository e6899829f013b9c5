import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOf } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth and keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it('drops undefined members like JSON does', () => {
    expect(canonicalJson({ a: undefined, b: 1 })).toBe('{"b":1}');
  });

  it('passes scalars through', () => {
    expect(canonicalJson('x')).toBe('"x"');
    expect(canonicalJson(5)).toBe('5');
    expect(canonicalJson(null)).toBe('null');
  });
});

describe('digestOf', () => {
  it('is equal for equal values whatever the key order, and differs otherwise', () => {
    expect(digestOf({ a: 1, b: [1, 2] })).toBe(digestOf({ b: [1, 2], a: 1 }));
    expect(digestOf({ a: 1, b: [1, 2] })).not.toBe(digestOf({ a: 1, b: [2, 1] }));
    expect(digestOf({ a: 1 })).not.toBe(digestOf({ a: '1' }));
  });

  it('is hex SHA-256, cut to the asked length', () => {
    expect(digestOf({})).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOf({}, 12)).toBe(digestOf({}).slice(0, 12));
  });
});
