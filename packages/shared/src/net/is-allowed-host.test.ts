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
    ['MCP.Internal:8080', 'mcp.internal:8080'],
    ['127.0.0.1:06379', '127.0.0.1:6379'],
    ['[::1]:3000', '[::1]:3000'],
    ['*.corp.example:443', '*.corp.example:443'],
  ])('normalizes %j to %j', (entry, pattern) => {
    expect(normalizeHostPattern(entry)).toBe(pattern);
  });

  it.each([
    '',
    '*',
    '*.',
    'a.*.b',
    'host:',
    'host:0',
    'host:65536',
    'host:80:80',
    '::1:80',
    'host:8o',
    'user@host',
    'host/path',
    'host?x',
    'ho st',
    '[not-ipv6]',
    '**.a',
  ])('refuses %j', (entry) => {
    expect(normalizeHostPattern(entry)).toBeUndefined();
  });
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

  it('matches a host:port entry on that port only, and a bare host on every port', () => {
    const withPorts = ['127.0.0.1:8888', '[::1]:3000', '*.corp.example:443', 'mcp.internal'];
    expect(isAllowedHost('127.0.0.1', withPorts, 8888)).toBe(true);
    expect(isAllowedHost('127.0.0.1', withPorts, 6379)).toBe(false);
    expect(isAllowedHost('127.0.0.1', withPorts)).toBe(false);
    expect(isAllowedHost('[::1]', withPorts, 3000)).toBe(true);
    expect(isAllowedHost('[::1]', withPorts, 3001)).toBe(false);
    expect(isAllowedHost('a.corp.example', withPorts, 443)).toBe(true);
    expect(isAllowedHost('a.corp.example', withPorts, 80)).toBe(false);
    expect(isAllowedHost('mcp.internal', withPorts, 6379)).toBe(true);
  });

  it('allows nothing with an empty list', () => {
    expect(isAllowedHost('mcp.internal', [])).toBe(false);
  });
});
