import { refreshReasonSchema, ValidationError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import {
  isForcedRefreshReason,
  refreshAnswersLaterRequests,
  refreshDeduplicationId,
  requestRefresh,
  type RefreshQueue,
} from './request-refresh.js';
import { refreshLockKey } from '../keys.js';

function recordingQueue() {
  const calls: Array<{ name: string; data: unknown; options: Record<string, unknown> | undefined }> = [];
  const queue: RefreshQueue = {
    async add(name, data, options) {
      calls.push({ name, data, options: options as Record<string, unknown> | undefined });
      return { id: String(calls.length) };
    },
  };
  return { queue, calls };
}

describe('requestRefresh', () => {
  it('adds a validated job named after its reason, deduplicated per server and reason class', async () => {
    const { queue, calls } = recordingQueue();
    await requestRefresh(queue, { serverId: 'docs', reason: 'list-changed', requestedAt: 42 });
    expect(calls).toHaveLength(1);
    expect(calls[0]?.name).toBe('list-changed');
    expect(calls[0]?.data).toEqual({ serverId: 'docs', reason: 'list-changed', requestedAt: 42 });
    expect(calls[0]?.options?.deduplication).toEqual({ id: 'refresh.docs.list-changed', keepLastIfActive: true });
    expect(calls[0]?.options?.attempts).toBe(1);
    await requestRefresh(queue, { serverId: 'docs', reason: 'on-demand', requestedAt: 43 });
    expect(calls[1]?.options?.deduplication).toEqual({ id: 'refresh.docs.forced', keepLastIfActive: true });
  });

  it('keeps the last request of an active refresh only for forced reasons', async () => {
    const { queue, calls } = recordingQueue();
    await requestRefresh(queue, { serverId: 'docs', reason: 'first-seen' });
    expect(calls[0]?.options?.deduplication).toEqual({ id: 'refresh.docs.background' });
  });

  it('stamps requestedAt when the caller gives none', async () => {
    const { queue, calls } = recordingQueue();
    const before = Date.now();
    await requestRefresh(queue, { serverId: 'docs', reason: 'first-seen' });
    const data = calls[0]?.data as { requestedAt: number };
    expect(data.requestedAt).toBeGreaterThanOrEqual(before);
  });

  it('rejects a bad server id or reason before adding anything', async () => {
    const { queue, calls } = recordingQueue();
    await expect(requestRefresh(queue, { serverId: 'Not A Slug', reason: 'on-demand' })).rejects.toSatisfy(
      (error) => ValidationError.isInstance(error) && (error as ValidationError).field === 'serverId',
    );
    await expect(requestRefresh(queue, { serverId: 'docs', reason: 'sometime' as never })).rejects.toSatisfy(
      (error) => ValidationError.isInstance(error) && (error as ValidationError).field === 'reason',
    );
    expect(calls).toHaveLength(0);
  });
});

describe('refresh reason classes', () => {
  it('lets explicit requests and notifications bypass backoff, and background probes respect it', () => {
    const forced = refreshReasonSchema.options.filter((reason) => isForcedRefreshReason(reason));
    expect(forced.sort()).toEqual(['disable', 'enable', 'list-changed', 'on-demand', 'restart']);
  });

  it('gives one deduplication id per server and class', () => {
    expect(refreshDeduplicationId('a', 'prewarm')).toBe(refreshDeduplicationId('a', 'scheduled'));
    expect(refreshDeduplicationId('a', 'prewarm')).not.toBe(refreshDeduplicationId('a', 'restart'));
    expect(refreshDeduplicationId('a', 'restart')).not.toBe(refreshDeduplicationId('b', 'restart'));
    // An operator's request never waits inside a notification's fallback job, which a read over
    // the watcher's session may answer before the operator asked.
    expect(refreshDeduplicationId('a', 'on-demand')).toBe(refreshDeduplicationId('a', 'restart'));
    expect(refreshDeduplicationId('a', 'on-demand')).not.toBe(refreshDeduplicationId('a', 'list-changed'));
  });

  it('answers operator requests only with a read that starts after the job started', () => {
    const later = refreshReasonSchema.options.filter((reason) => refreshAnswersLaterRequests(reason));
    expect(later.sort()).toEqual(['disable', 'enable', 'on-demand', 'restart']);
  });

  it("builds the lock key under the prefix, in the server's own hash tag on a cluster", () => {
    expect(refreshLockKey('agentq', 'docs')).toBe('agentq:lock.refresh.docs');
    expect(refreshLockKey('{agentq}', 'docs')).toBe('{agentq.srv.docs}:lock.refresh.docs');
  });
});
