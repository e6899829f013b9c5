import { describe, expect, it } from 'vitest';
import { refreshJobSchema, refreshReasonSchema, serverChangeEventSchema } from './refresh-job.js';

describe('refreshJobSchema', () => {
  it('accepts every documented reason', () => {
    const reasons = ['prewarm', 'list-changed', 'restart', 'enable', 'disable', 'on-demand', 'first-seen', 'scheduled'];
    expect(refreshReasonSchema.options).toEqual(reasons);
    for (const reason of reasons) {
      expect(refreshJobSchema.parse({ serverId: 'github', reason, requestedAt: 1 })).toEqual({
        serverId: 'github',
        reason,
        requestedAt: 1,
      });
    }
  });

  it('rejects an unknown reason, naming the field', () => {
    const parsed = refreshJobSchema.safeParse({ serverId: 'github', reason: 'because', requestedAt: 1 });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['reason']);
  });

  it('rejects an unknown field', () => {
    const parsed = refreshJobSchema.safeParse({ serverId: 'github', reason: 'prewarm', requestedAt: 1, force: true });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.code).toBe('unrecognized_keys');
    expect(parsed.error?.issues[0]?.message).toContain('force');
  });

  it('rejects a non-slug server id and a bad timestamp', () => {
    expect(
      refreshJobSchema.safeParse({ serverId: 'Git Hub', reason: 'prewarm', requestedAt: 1 }).error?.issues[0]?.path,
    ).toEqual(['serverId']);
    expect(
      refreshJobSchema.safeParse({ serverId: 'g', reason: 'prewarm', requestedAt: -1 }).error?.issues[0]?.path,
    ).toEqual(['requestedAt']);
  });
});

describe('serverChangeEventSchema', () => {
  it('accepts the store events and rejects unknown types', () => {
    expect(serverChangeEventSchema.safeParse({ type: 'remove', serverId: 'github' }).success).toBe(true);
    expect(serverChangeEventSchema.safeParse({ type: 'put', serverId: 'github', definitionHash: 'h' }).success).toBe(
      true,
    );
    expect(serverChangeEventSchema.safeParse({ type: 'rename', serverId: 'github' }).success).toBe(false);
  });
});
