import { describe, expect, it } from 'vitest';
import { catalogEntryDigest } from './catalog-entry-digest.js';

describe('catalogEntryDigest', () => {
  it('is the hex SHA-1 that Lua redis.sha1hex gives, for text and bytes alike', () => {
    expect(catalogEntryDigest('abc')).toBe('a9993e364706816aba3e25717850c26c9cd0d89d');
    expect(catalogEntryDigest(Buffer.from('{"tools":["é"]}', 'utf8'))).toBe(catalogEntryDigest('{"tools":["é"]}'));
  });
});
