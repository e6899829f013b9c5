/** Runs a task once a slot is free; see {@link limitConcurrency}. */
export type ConcurrencyLimit = <T>(task: () => Promise<T>) => Promise<T>;

/**
 * A semaphore of `concurrency` slots, in the shape of `p-limit`: each task starts once fewer than
 * `concurrency` tasks run, in the order they were handed in, and frees its slot when it settles.
 */
export function limitConcurrency(concurrency: number): ConcurrencyLimit {
  const slots = Math.max(1, Math.floor(concurrency));
  const waiting: Array<() => void> = [];
  let running = 0;
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running -= 1;
  };
  return async (task) => {
    if (running < slots) running += 1;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      release();
    }
  };
}
