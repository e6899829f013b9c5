import { describe, expect, it } from 'vitest';
import { HASH_SLOTS, hashSlot } from './hash-slot.js';
import {
  approvalIdFor,
  approvalShardIndex,
  RunShardRouter,
  runRoutingKey,
  runShardIndex,
  runShardTag,
} from './run-shards.js';

describe('run shards', () => {
  it('keeps the single-node names with one shard', () => {
    const router = new RunShardRouter({ prefix: 'agentq', cluster: false });
    expect(router.count).toBe(1);
    const shard = router.forRun('run-1');
    expect(shard.prefix).toBe('agentq');
    expect(shard.keys.run('run-1')).toBe('agentq:run.run-1');
    expect(approvalIdFor({ runId: 'run-1', incarnation: 'i-1', toolCallId: 'c1', shard })).toMatch(
      /^appr-[0-9a-f]{32}$/,
    );
  });

  it('defaults to 16 shards on a cluster, each under its own hash tag', () => {
    const router = new RunShardRouter({ prefix: 'agentq', cluster: true });
    expect(router.count).toBe(16);
    const tags = router.all().map((shard) => shard.prefix);
    expect(new Set(tags).size).toBe(16);
    for (const tag of tags) expect(tag).toMatch(/^\{agentq\.r\d+-\d+\}$/);
    expect(router.shard(undefined).prefix).toBe('{agentq}');
  });

  it('routes a run by a pure function of its id, and a scheduled run by its schedule', () => {
    expect(runShardIndex('run-abc', 16)).toBe(runShardIndex('run-abc', 16));
    expect(runRoutingKey('repeat:nightly:1796020271018')).toBe('nightly');
    expect(runShardIndex('repeat:nightly:1', 16)).toBe(runShardIndex('repeat:nightly:2', 16));
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 1600; i += 1) counts[runShardIndex(`run-${i}`, 16)]! += 1;
    for (const count of counts) expect(count).toBeGreaterThan(50);
  });

  it('spreads the shard tags evenly over the slot space for any shard count', () => {
    for (const count of [4, 8, 16]) {
      // Three masters with contiguous, equal slot ranges, as `redis-cli --cluster create` makes them.
      const perMaster = [0, 0, 0];
      for (let index = 0; index < count; index += 1) {
        const slot = hashSlot(runShardTag('agentq', index));
        perMaster[Math.min(2, Math.floor(slot / (HASH_SLOTS / 3)))]! += 1;
      }
      for (const shards of perMaster) expect(shards).toBeGreaterThanOrEqual(1);
      if (count === 16) for (const shards of perMaster) expect(shards).toBeLessThanOrEqual(6);
    }
  });

  it('keeps a shard the same queue whatever the shard count', () => {
    const eight = new RunShardRouter({ prefix: 'p', cluster: true, count: 8 });
    const sixteen = new RunShardRouter({ prefix: '{p}', cluster: true, count: 16 });
    expect(eight.shard(3).prefix).toBe(sixteen.shard(3).prefix);
  });

  it('finds an approval shard from the approval id', () => {
    const router = new RunShardRouter({ prefix: 'p', cluster: true, count: 16 });
    const shard = router.forRun('run-9');
    const approvalId = approvalIdFor({ runId: 'run-9', incarnation: 'i-1', toolCallId: 'call-1', shard });
    expect(approvalId).toMatch(/^appr-r\d+-[0-9a-f]{32}$/);
    expect(approvalShardIndex(approvalId)).toBe(shard.index);
    expect(router.forApproval(approvalId)).toBe(shard);
    expect(router.forApproval('appr-0123')).toBe(router.shard(undefined));
  });

  it('gives the same call of another incarnation of a run another approval id', () => {
    const shard = new RunShardRouter({ prefix: 'p', cluster: true, count: 16 }).forRun('run-9');
    const first = approvalIdFor({ runId: 'run-9', incarnation: 'first', toolCallId: 'call-1', shard });
    expect(approvalIdFor({ runId: 'run-9', incarnation: 'first', toolCallId: 'call-1', shard })).toBe(first);
    expect(approvalIdFor({ runId: 'run-9', incarnation: 'again', toolCallId: 'call-1', shard })).not.toBe(first);
    expect(approvalShardIndex(first)).toBe(shard.index);
  });

  it('refuses a shard count out of range', () => {
    expect(() => new RunShardRouter({ prefix: 'p', cluster: false, count: 0 })).toThrow();
    expect(() => new RunShardRouter({ prefix: 'p', cluster: false, count: 257 })).toThrow();
  });
});
