import { describe, expect, it } from 'vitest';
import { customRunIdSchema, newRunId, runIdSchema } from './run-id.js';

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

  it('accepts the ids of scheduled runs for lookups but not for new runs', () => {
    expect(runIdSchema.safeParse('repeat:nightly:1796020271018').success).toBe(true);
    expect(customRunIdSchema.safeParse('repeat:nightly:1796020271018').success).toBe(false);
  });
});
