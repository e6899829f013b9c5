import { describe, expect, it } from 'vitest';
import { keyPrefix } from '@agentq/shared';
import {
  bullmqKeys,
  entityScope,
  isKeyUnder,
  keyNames,
  refreshLockKey,
  runShardScope,
  runStateKeys,
  type KeyNames,
} from './keys.js';

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
    expect(keys.serversVersion).toBe('agentq:servers.version');
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
      keys.serversVersion,
      keys.serversChanged,
      keys.catalogUpdated,
      keys.run('s'),
      keys.decision('s'),
      keys.pendingApprovals,
      keys.elicitation('s'),
      keys.pendingElicitations,
      keys.runElicitations('s'),
      keys.watchLease('s'),
      keys.serverSession('s'),
      keys.serverSessionRenewed,
      keys.warmer('s'),
      keys.warmers,
      keys.runToolResults('s'),
      keys.runMessages('s'),
      keys.runSteps('s'),
      keys.runStepAnswer('s'),
      keys.catalogSnapshot('s', 'v'),
      keys.refreshLock('s'),
      keys.runShardCounts,
      keys.warmerCapabilities,
      keys.refreshDelegated('s'),
      keys.adminSession('s'),
      keys.loginRateLimit,
      keys.toolEmbedding('s', 's'),
      keys.toolEnrichment('s', 's'),
      keys.toolsEnriched,
      keys.enrichBudget('s', 1),
    ];
    expect(new Set(names).size).toBe(names.length);
  });

  it('keeps global keys under the prefix tag and gives every server its own tag in cluster mode', () => {
    const keys = keyNames(keyPrefix({ prefix: 'agentq', cluster: true }));
    const tagOf = (name: string) => name.slice(name.indexOf('{') + 1, name.indexOf('}'));
    const global = [
      keys.servers,
      keys.serversVersion,
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
      keys.toolEnrichment('m', 't'),
      keys.toolsEnriched,
      keys.enrichBudget('a', 1),
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
    expect(shard.queueEvents('agent-runs')).toBe('{agentq.r3-7}:agent-runs:events');
  });

  it("names a run's checkpoint, its tool-result journal and its step log together", () => {
    const keys = keyNames('agentq');
    expect(runStateKeys(keys, 'r1')).toEqual([
      'agentq:run.r1',
      'agentq:run.r1:tool-results',
      'agentq:run.r1:messages',
      'agentq:run.r1:steps',
      'agentq:run.r1:step-answer',
    ]);
    expect(keys.refreshLock('docs')).toBe('agentq:lock.refresh.docs');
    expect(keys.warmerCapabilities).toBe('agentq:warmer.capabilities');
  });
});

// Every builder of KeyNames, called with `A` (and `B`, `C`) for its arguments, and the key it
// spells on a single Redis under the prefix `P`, then on a cluster under `{P}`. A builder added
// to KeyNames without a row here fails the first test: each key's shape is checked once.
const everyKey: Record<Exclude<keyof KeyNames, 'prefix'>, { single: string; cluster: string }> = {
  tools: { single: 'P:mcp.tools.A', cluster: '{P.srv.A}:mcp.tools.A' },
  catalogVersion: { single: 'P:mcp.version.A', cluster: '{P.srv.A}:mcp.version.A' },
  status: { single: 'P:mcp.status.A', cluster: '{P.srv.A}:mcp.status.A' },
  servers: { single: 'P:servers', cluster: '{P}:servers' },
  serversVersion: { single: 'P:servers.version', cluster: '{P}:servers.version' },
  serversChanged: { single: 'P:servers.changed', cluster: '{P}:servers.changed' },
  catalogUpdated: { single: 'P:catalog.updated', cluster: '{P}:catalog.updated' },
  run: { single: 'P:run.A', cluster: '{P}:run.A' },
  runToolResults: { single: 'P:run.A:tool-results', cluster: '{P}:run.A:tool-results' },
  runMessages: { single: 'P:run.A:messages', cluster: '{P}:run.A:messages' },
  runSteps: { single: 'P:run.A:steps', cluster: '{P}:run.A:steps' },
  runStepAnswer: { single: 'P:run.A:step-answer', cluster: '{P}:run.A:step-answer' },
  catalogSnapshot: { single: 'P:mcp.snapshot.A.B', cluster: '{P.srv.A}:mcp.snapshot.A.B' },
  decision: { single: 'P:approval.A', cluster: '{P}:approval.A' },
  pendingApprovals: { single: 'P:approvals.pending', cluster: '{P}:approvals.pending' },
  elicitation: { single: 'P:elicitation.A', cluster: '{P}:elicitation.A' },
  pendingElicitations: { single: 'P:elicitations.pending', cluster: '{P}:elicitations.pending' },
  runElicitations: { single: 'P:run.A:elicitations', cluster: '{P}:run.A:elicitations' },
  runShardCounts: { single: 'P:run.shard-counts', cluster: '{P}:run.shard-counts' },
  watchLease: { single: 'P:lease.watch.A', cluster: '{P.srv.A}:lease.watch.A' },
  serverSession: { single: 'P:mcp.session.A', cluster: '{P.srv.A}:mcp.session.A' },
  serverSessionRenewed: { single: 'P:mcp.sessions.renewed', cluster: '{P}:mcp.sessions.renewed' },
  warmer: { single: 'P:warmer.A', cluster: '{P}:warmer.A' },
  warmers: { single: 'P:warmers', cluster: '{P}:warmers' },
  refreshLock: { single: 'P:lock.refresh.A', cluster: '{P.srv.A}:lock.refresh.A' },
  warmerCapabilities: { single: 'P:warmer.capabilities', cluster: '{P}:warmer.capabilities' },
  refreshDelegated: { single: 'P:catalog.refresh.delegated.A', cluster: '{P}:catalog.refresh.delegated.A' },
  adminSession: { single: 'P:admin.session.A', cluster: '{P}:admin.session.A' },
  loginRateLimit: { single: 'P:admin.login-limit.', cluster: '{P}:admin.login-limit.' },
  kbs: { single: 'P:kbs', cluster: '{P}:kbs' },
  kbVersion: { single: 'P:kb.A.version', cluster: '{P}:kb.A.version' },
  kbSerial: { single: 'P:kb.A.serial', cluster: '{P}:kb.A.serial' },
  kbManifest: { single: 'P:kb.A.manifest.B', cluster: '{P}:kb.A.manifest.B' },
  kbChunks: { single: 'P:kb.A.chunks.B.C', cluster: '{P}:kb.A.chunks.B.C' },
  kbChunkSets: { single: 'P:kb.A.chunk-sets', cluster: '{P}:kb.A.chunk-sets' },
  kbUpdated: { single: 'P:kb.updated', cluster: '{P}:kb.updated' },
  toolEmbedding: { single: 'P:embedding.A.B', cluster: '{P}:embedding.A.B' },
  toolEnrichment: { single: 'P:enrichment.A.B', cluster: '{P}:enrichment.A.B' },
  toolsEnriched: { single: 'P:tools.enriched', cluster: '{P}:tools.enriched' },
  enrichBudget: { single: 'P:enrich-budget.A.B', cluster: '{P}:enrich-budget.A.B' },
  oauthTokens: { single: 'P:oauth.A', cluster: '{P.srv.A}:oauth.A' },
  oauthRefreshLease: { single: 'P:lock.oauth.A', cluster: '{P.srv.A}:lock.oauth.A' },
  oauthFlow: { single: 'P:oauth.flow.A', cluster: '{P}:oauth.flow.A' },
  // BullMQ's own layout: `<prefix>:<queue>:<jobId>`, the queue name in place of `A`.
  queueJob: { single: 'P:A:B', cluster: '{P}:A:B' },
  queueJobLock: { single: 'P:A:B:lock', cluster: '{P}:A:B:lock' },
  queueMeta: { single: 'P:A:meta', cluster: '{P}:A:meta' },
  queueEvents: { single: 'P:A:events', cluster: '{P}:A:events' },
};

function spell(keys: KeyNames, member: string): string {
  const value = (keys as unknown as Record<string, unknown>)[member];
  return typeof value === 'function' ? (value as (...args: string[]) => string)('A', 'B', 'C') : String(value);
}

describe('every key builder', () => {
  it('has a row in the table of keys', () => {
    const members = Object.keys(keyNames('P')).filter((member) => member !== 'prefix');
    expect(members.sort()).toEqual(Object.keys(everyKey).sort());
  });

  it.each(Object.entries(everyKey))('%s spells the documented key on a single Redis and a cluster', (member, key) => {
    expect(spell(keyNames('P'), member)).toBe(key.single);
    expect(spell(keyNames('{P}'), member)).toBe(key.cluster);
  });

  it.each(Object.entries(everyKey))('%s is <scope>:<name>, with one hash tag on a cluster', (member, key) => {
    // The name part: lower-case words joined by dots and dashes, with the arguments in it.
    // BullMQ's keys keep BullMQ's layout, `<queue>:<jobId>[:lock]`, `<queue>:meta` or `<queue>:events`.
    expect(key.single).toMatch(/^P:([a-z][a-z.-]*[a-zA-Z.:-]*|A:(B|B:lock|meta|events))$/);
    expect(key.cluster).toMatch(/^\{P(\.srv\.A)?\}:[^{}]+$/);
    // The same name under either scope: only the scope differs.
    expect(key.cluster.slice(key.cluster.indexOf('}:') + 2)).toBe(key.single.slice('P:'.length));
    expect(isKeyUnder('P', key.single)).toBe(true);
    expect(member).not.toBe('prefix');
  });

  it('keeps every key of one server in the one slot of that server on a cluster', () => {
    const keys = keyNames('{P}');
    const perServer = Object.entries(everyKey)
      .filter(([, key]) => key.cluster.startsWith('{P.srv.'))
      .map(([member]) => spell(keys, member));
    expect(perServer.length).toBeGreaterThan(0);
    for (const key of perServer) expect(key.startsWith(`${entityScope('{P}', 'srv', 'A')}:`)).toBe(true);
  });

  it('builds the keys named outside KeyNames', () => {
    expect(refreshLockKey('P', 'A')).toBe(keyNames('P').refreshLock('A'));
    expect(runStateKeys(keyNames('P'), 'A')).toEqual([
      'P:run.A',
      'P:run.A:tool-results',
      'P:run.A:messages',
      'P:run.A:steps',
      'P:run.A:step-answer',
    ]);
    expect(runShardScope('P', 3, 7)).toBe('{P.r3-7}');
    expect(bullmqKeys.jobLock('P:agent-runs', 'A')).toBe('P:agent-runs:A:lock');
    expect(isKeyUnder('P', 'Q:servers')).toBe(false);
    expect(isKeyUnder('P', 'PP:servers')).toBe(false);
  });
});
