import { describe, expect, it } from 'vitest';
import { keyNames, keyPrefix } from './keys.js';

describe('keyPrefix', () => {
  it('keeps the prefix as it is outside cluster mode', () => {
    expect(keyPrefix({ prefix: 'agentq', cluster: false })).toBe('agentq');
  });

  it('hash-tags the prefix in cluster mode, once', () => {
    expect(keyPrefix({ prefix: 'agentq', cluster: true })).toBe('{agentq}');
    expect(keyPrefix({ prefix: '{agentq}', cluster: true })).toBe('{agentq}');
  });
});

describe('keyNames', () => {
  it('builds the catalog keys the architecture names', () => {
    const keys = keyNames('agentq');
    expect(keys.prefix).toBe('agentq');
    expect(keys.tools('github')).toBe('agentq:mcp.tools.github');
    expect(keys.status('github')).toBe('agentq:mcp.status.github');
    expect(keys.servers).toBe('agentq:servers');
    expect(keys.catalogUpdated).toBe('agentq:catalog.updated');
    expect(keys.run('run-1')).toBe('agentq:run.run-1');
  });

  it('gives distinct names to every key and channel', () => {
    const keys = keyNames('p');
    const names = [
      keys.tools('s'),
      keys.status('s'),
      keys.servers,
      keys.serversChanged,
      keys.catalogUpdated,
      keys.run('s'),
      keys.decision('s'),
      keys.pendingApprovals,
      keys.watchLease('s'),
      keys.warmer('s'),
      keys.warmers,
      keys.refreshBackoff('s'),
      keys.adminSession('s'),
      keys.loginRateLimit,
    ];
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps every key under one hash tag in cluster mode', () => {
    const keys = keyNames(keyPrefix({ prefix: 'agentq', cluster: true }));
    const names = [
      keys.tools('a'),
      keys.status('a'),
      keys.servers,
      keys.serversChanged,
      keys.catalogUpdated,
      keys.run('r'),
      keys.decision('d'),
      keys.pendingApprovals,
      keys.watchLease('a'),
      keys.warmer('w'),
      keys.warmers,
      keys.refreshBackoff('a'),
      keys.adminSession('a'),
      keys.loginRateLimit,
    ];
    // Redis Cluster hashes only the text between the first `{` and the next `}`.
    for (const name of names) expect(name.slice(name.indexOf('{') + 1, name.indexOf('}'))).toBe('agentq');
    for (const name of names) expect(name.startsWith('{agentq}:')).toBe(true);
  });
});
