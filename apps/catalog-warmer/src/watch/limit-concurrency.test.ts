import { describe, expect, it } from 'vitest';
import { limitConcurrency } from './limit-concurrency.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('limitConcurrency', () => {
  it('runs at most the given number of tasks at once, in order', async () => {
    const limit = limitConcurrency(2);
    const gates = [deferred(), deferred(), deferred()];
    const started: number[] = [];
    const runs = gates.map((gate, index) =>
      limit(async () => {
        started.push(index);
        await gate.promise;
        return index;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    gates[1]?.resolve();
    await runs[1];
    await Promise.resolve();
    expect(started).toEqual([0, 1, 2]);
    gates[0]?.resolve();
    gates[2]?.resolve();
    expect(await Promise.all(runs)).toEqual([0, 1, 2]);
  });

  it('frees the slot of a task that throws', async () => {
    const limit = limitConcurrency(1);
    await expect(limit(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limit(() => Promise.resolve('next'))).toBe('next');
  });
});
