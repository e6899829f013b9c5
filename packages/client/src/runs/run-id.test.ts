import { describe, expect, it } from 'vitest';
import { RUN_ID_MAX_LENGTH, SCHEDULED_RUN_ID_MAX_LENGTH, customRunIdSchema, newRunId, runIdSchema } from './run-id.js';

describe('runIdSchema', () => {
  it('accepts ids BullMQ accepts as custom job ids', () => {
    for (const id of ['run-1a', 'nightly.2026-11-30', newRunId(), 'A_b-c.d']) {
      expect(runIdSchema.safeParse(id).success).toBe(true);
    }
  });

  it('rejects colons, bare numbers, empty and oversized ids', () => {
    for (const id of ['a:b', '42', '', 'x'.repeat(129), '-leading', 'sp ace']) {
      expect(runIdSchema.safeParse(id).success).toBe(false);
    }
  });

  it('rejects the names the queue keeps for its own keys, and only those', () => {
    for (const id of [
      'wait',
      'active',
      'meta',
      'marker',
      'id',
      'events',
      'stalled-check',
      'waiting-children',
      'metrics',
    ]) {
      expect(runIdSchema.safeParse(id).success, id).toBe(false);
    }
    for (const id of ['waiting', 'wait-1', 'Wait', 'metadata', 'ids']) {
      expect(customRunIdSchema.safeParse(id).success, id).toBe(true);
    }
  });

  it('accepts the ids of scheduled runs for lookups but not for new runs', () => {
    expect(runIdSchema.safeParse('repeat:nightly:1796020271018').success).toBe(true);
    expect(customRunIdSchema.safeParse('repeat:nightly:1796020271018').success).toBe(false);
  });
});

describe('run id lengths', () => {
  it('stop exactly at the documented maxima', () => {
    expect(customRunIdSchema.safeParse('r'.repeat(RUN_ID_MAX_LENGTH)).success).toBe(true);
    expect(customRunIdSchema.safeParse('r'.repeat(RUN_ID_MAX_LENGTH + 1)).success).toBe(false);
    const longest = `repeat:${'s'.repeat(100)}:${'9'.repeat(20)}`;
    expect(longest).toHaveLength(SCHEDULED_RUN_ID_MAX_LENGTH);
    expect(runIdSchema.safeParse(longest).success).toBe(true);
    expect(runIdSchema.safeParse(`${longest.slice(0, -1)}99`).success).toBe(false);
  });
});
