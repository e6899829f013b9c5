import { describe, expect, it } from 'vitest';
import { hashSlot } from './hash-slot.js';

describe('hashSlot', () => {
  it('matches the slots Redis Cluster documents', () => {
    // CLUSTER KEYSLOT answers: foo 12182, bar 5061, 123456789 12739 (the CRC16/XMODEM check value 0x31C3).
    expect(hashSlot('foo')).toBe(12182);
    expect(hashSlot('bar')).toBe(5061);
    expect(hashSlot('123456789')).toBe(0x31c3 % 16384);
  });

  it('hashes only the hash tag when there is one', () => {
    expect(hashSlot('{user1000}.following')).toBe(hashSlot('user1000'));
    expect(hashSlot('{agentq}:servers')).toBe(hashSlot('{agentq}:run.x'));
    // An empty tag is no tag: the whole key is hashed.
    expect(hashSlot('{}x')).toBe(hashSlot('{}x'));
    expect(hashSlot('{}x')).not.toBe(hashSlot('x'));
  });
});
