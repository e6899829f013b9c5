import { describe, expect, it } from 'vitest';
import { keyPrefix } from '@agentq/shared';
import { entityScope, keyNames, runStateKeys } from './keys.js';

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
    expect(keys.catalogVersion('github')).toBe('agentq:mcp.version.github');
    expect(keys.servers).toBe('agentq:servers');
    expect(keys.catalogUpdated).toBe('agentq:catalog.updated');
    expect(keys.run('run-1')).toBe('agentq:run.run-1');
  });

  it('gives distinct names to every key and channel', () => {
    const keys = keyNames('p');
    const names = [
      keys.tools('s'),
      keys.catalogVersion('s'),
      keys.status('s'),
      keys.servers,
      keys.serversChanged,
      keys.catalogUpdated,
      keys.run('s'),
      keys.decision('s'),
      keys.pendingApprovals,
      keys.watchLease('s'),
      keys.serverSession('s'),
      keys.serverSessionRenewed,
      keys.warmer('s'),
      keys.warmers,
      keys.runToolResults('s'),
      keys.refreshLock('s'),
      keys.runShardCounts,
      keys.warmerCapabilities,
      keys.refreshDelegated('s'),
      keys.adminSession('s'),
      keys.loginRateLimit,
      keys.toolEmbedding('s', 's'),
    ];
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps global keys under the prefix tag and gives every server its own tag in cluster mode', () => {
    const keys = keyNames(keyPrefix({ prefix: 'agentq', cluster: true }));
    const tagOf = (name: string) => name.slice(name.indexOf('{') + 1, name.indexOf('}'));
    const global = [
      keys.servers,
      keys.serversChanged,
      keys.catalogUpdated,
      keys.serverSessionRenewed,
      keys.warmer('w'),
      keys.warmers,
      keys.warmerCapabilities,
      keys.adminSession('a'),
      keys.loginRateLimit,
      keys.runShardCounts,
      keys.toolEmbedding('m', 't'),
    ];
    for (const name of global) expect(name.startsWith('{agentq}:')).toBe(true);
    const perServer = [
      keys.tools('a'),
      keys.catalogVersion('a'),
      keys.status('a'),
      keys.watchLease('a'),
      keys.refreshLock('a'),
      keys.serverSession('a'),
    ];
    // Redis Cluster hashes only the text between the first `{` and the next `}`.
    for (const name of perServer) expect(tagOf(name)).toBe('agentq.srv.a');
    expect(keys.tools('a')).toBe('{agentq.srv.a}:mcp.tools.a');
    expect(tagOf(keys.tools('b'))).toBe('agentq.srv.b');
  });

  it('keeps the single-node names when the prefix has no hash tag', () => {
    expect(entityScope('agentq', 'srv', 'x')).toBe('agentq');
    expect(entityScope('{agentq}', 'kb', 'docs')).toBe('{agentq.kb.docs}');
    expect(keyNames('agentq').watchLease('x')).toBe('agentq:lease.watch.x');
  });

  it('covers every key builder in the distinctness check', () => {
    // Every member of KeyNames, called with the same argument: a new key that shadows an old one
    // (or is built from another one's text) fails here without anyone listing it by hand.
    const keys = keyNames('p');
    const names = Object.entries(keys)
      .filter(([member]) => member !== 'prefix')
      .map(([, value]) => (typeof value === 'function' ? (value as (id: string) => string)('x') : String(value)));
    expect(names.length).toBeGreaterThanOrEqual(14);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name.startsWith('p:')).toBe(true);
  });

  it("spells BullMQ's own keys of a job and a queue as BullMQ does", () => {
    const shard = keyNames('{agentq.r3-7}');
    expect(shard.queueJob('agent-runs', 'run-1')).toBe('{agentq.r3-7}:agent-runs:run-1');
    expect(shard.queueJobLock('agent-runs', 'run-1')).toBe('{agentq.r3-7}:agent-runs:run-1:lock');
    expect(keyNames('agentq').queueMeta('agent-runs')).toBe('agentq:agent-runs:meta');
  });

  it("names a run's checkpoint and its tool-result journal together", () => {
    const keys = keyNames('agentq');
    expect(runStateKeys(keys, 'r1')).toEqual(['agentq:run.r1', 'agentq:run.r1:tool-results']);
    expect(keys.refreshLock('docs')).toBe('agentq:lock.refresh.docs');
    expect(keys.warmerCapabilities).toBe('agentq:warmer.capabilities');
  });
});
