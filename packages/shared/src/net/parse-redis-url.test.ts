import { describe, expect, it } from 'vitest';
import { maskRedisUrl, parseRedisUrl } from './parse-redis-url.js';

describe('parseRedisUrl', () => {
  it('takes credentials up to the last @ before the host, for one node and for a cluster list', () => {
    const single = parseRedisUrl('redis://user:p@ss@127.0.0.1:1');
    expect(decodeURIComponent(single.url.password)).toBe('p@ss');
    expect(single.nodes).toEqual([{ host: '127.0.0.1', port: 1 }]);
    const cluster = parseRedisUrl('redis+cluster://user:p@ss@h1:7000,h2:7001/0');
    expect(decodeURIComponent(cluster.url.password)).toBe('p@ss');
    expect(cluster.url.username).toBe('user');
    expect(cluster.nodes).toEqual([
      { host: 'h1', port: 7000 },
      { host: 'h2', port: 7001 },
    ]);
  });
});

describe('maskRedisUrl', () => {
  it.each([
    ['redis://user:p@ssw0rdSECRET@127.0.0.1:1', 'redis://user:***@127.0.0.1:1'],
    ['redis://:SECRET@host:6379/2', 'redis://:***@host:6379/2'],
    ['rediss://user:a@b@c:SECRET@host', 'rediss://user:***@host'],
    ['redis+cluster://user:p@sSECRET@h1:7000,h2:7001', 'redis+cluster://user:***@h1:7000,h2:7001'],
    ['rediss+cluster://:SECRET@h1,h2/0', 'rediss+cluster://:***@h1,h2/0'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
    ['redis://user@host:1', 'redis://user@host:1'],
  ])('masks the whole password of %s', (url, masked) => {
    expect(maskRedisUrl(url)).toBe(masked);
  });

  it('masks everything between // and the last @ of a URL it cannot parse', () => {
    const masked = maskRedisUrl('redis://user:pa/SECRET@host:notaport');
    expect(masked).not.toContain('SECRET');
    expect(masked).toBe('redis://***@host:notaport');
    expect(maskRedisUrl('redis://us SECRET@[bad')).toBe('redis://***@[bad');
  });
});
