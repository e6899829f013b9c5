/**
 * Lets waiters through a few per event-loop turn. Many runs' Redis replies can arrive in one
 * socket read; the client resolves them all in one macrotask, and each run would then go on
 * synchronously through its start (spec parse, tool build, prompt conversion) before the loop gets
 * back to timers and I/O, so a burst of runs' CPU lands in one turn and stalls every other run,
 * BullMQ's lock renewals included. Passing the gate first spreads that work over turns.
 */
export interface TurnGate {
  /** Resolves in a later turn of the event loop, in arrival order, `perTurn` waiters per turn. */
  pass(): Promise<void>;
}

/** Options of {@link createTurnGate}. */
export interface TurnGateOptions {
  /** Waiters let through per turn. @default 1 */
  perTurn?: number;
}

export function createTurnGate(options: TurnGateOptions = {}): TurnGate {
  const perTurn = Math.max(1, options.perTurn ?? 1);
  let waiting: Array<() => void> = [];
  let next = 0;
  let scheduled = false;
  const release = () => {
    const end = Math.min(waiting.length, next + perTurn);
    const batch = waiting.slice(next, end);
    next = end;
    // Drop the released head once it is most of the array, so a gate that never drains stays small.
    if (next === waiting.length || next > 1_024) {
      waiting = waiting.slice(next);
      next = 0;
    }
    // A release scheduled from inside setImmediate runs in the next turn, after timers and I/O.
    scheduled = waiting.length > 0;
    if (scheduled) setImmediate(release);
    for (const resolve of batch) resolve();
  };
  return {
    pass() {
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        if (!scheduled) {
          scheduled = true;
          setImmediate(release);
        }
      });
    },
  };
}
