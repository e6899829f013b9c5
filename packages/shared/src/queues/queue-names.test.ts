import { describe, expect, it } from 'vitest';
import { QUEUE_NAMES } from './queue-names.js';

describe('QUEUE_NAMES', () => {
  it('names the architecture queues, none containing ":"', () => {
    const names = Object.values(QUEUE_NAMES);
    expect(names).toEqual(expect.arrayContaining(['catalog-refresh', 'agent-runs', 'approvals']));
    for (const name of names) expect(name).not.toContain(':');
    expect(new Set(names).size).toBe(names.length);
  });
});
