import { describe, expect, it } from 'vitest';
import { createTurnGate } from './turn-gate.js';

describe('createTurnGate', () => {
  it('lets waiters through in arrival order, one per event-loop turn, other work running between them', async () => {
    const gate = createTurnGate();
    const order: string[] = [];
    let other: Promise<void> | undefined;
    const passes = [1, 2, 3].map((index) =>
      gate.pass().then(() => {
        order.push(`run ${index}`);
        // Work queued by the first run gets a turn before the last run is let through.
        other ??= new Promise((resolve) =>
          setImmediate(() => {
            order.push('other');
            resolve();
          }),
        );
      }),
    );
    await Promise.all(passes);
    await other;
    expect(order).toEqual(['run 1', 'run 2', 'other', 'run 3']);
  });

  it('lets `perTurn` through together and keeps working after it drained', async () => {
    const gate = createTurnGate({ perTurn: 2 });
    const order: string[] = [];
    const first = [1, 2, 3].map((index) => gate.pass().then(() => order.push(`run ${index}`)));
    const between = new Promise<void>((resolve) =>
      setImmediate(() => {
        order.push('between');
        resolve();
      }),
    );
    await Promise.all([...first, between]);
    expect(order).toEqual(['run 1', 'run 2', 'between', 'run 3']);
    await gate.pass();
  });
});
