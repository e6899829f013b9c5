import { describe, expect, it } from 'vitest';
import { isAllowedHost, normalizeHostPattern } from './is-allowed-host.js';

describe('normalizeHostPattern', () => {
  it.each([
    ['MCP.Internal', 'mcp.internal'],
    [' mcp.internal. ', 'mcp.internal'],
    ['*.Corp.Example', '*.corp.example'],
    ['10.0.0.5', '10.0.0.5'],
    ['[FD00::1]', '[fd00::1]'],
    ['[::ffff:127.0.0.1]', '[::ffff:7f00:1]'],
  ])('normalizes %j to %j', (entry, pattern) => {
    expect(normalizeHostPattern(entry)).toBe(pattern);
  });

  it.each(['', '*', '*.', 'a.*.b', 'host:8080', 'user@host', 'host/path', 'host?x', 'ho st', '[not-ipv6]', '**.a'])(
    'refuses %j',
    (entry) => {
      expect(normalizeHostPattern(entry)).toBeUndefined();
    },
  );
});

describe('isAllowedHost', () => {
  const patterns = ['mcp.internal', '*.corp.example', '10.0.0.5', '[fd00::1]'];

  it.each([
    'mcp.internal',
    'MCP.internal',
    'mcp.internal.',
    'a.corp.example',
    'a.b.corp.example',
    '10.0.0.5',
    '[fd00::1]',
  ])('allows %s', (host) => {
    expect(isAllowedHost(host, patterns)).toBe(true);
  });

  it.each([
    'internal',
    'x.mcp.internal',
    'mcp.internal.evil',
    'corp.example',
    'badcorp.example',
    'corp.example.evil',
    '10.0.0.6',
    '[fd00::2]',
  ])('refuses %s', (host) => {
    expect(isAllowedHost(host, patterns)).toBe(false);
  });

  it('allows nothing with an empty list', () => {
    expect(isAllowedHost('mcp.internal', [])).toBe(false);
  });
});
