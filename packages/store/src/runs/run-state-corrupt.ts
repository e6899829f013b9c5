import { NonRetryableError } from '@agentq/shared';
import type { RedisConnection } from '../redis/create-redis-connection.js';
import { isWrongTypeError } from '../redis/redis-answers.js';

/** The Redis type agentq stores in a key (as `TYPE` answers it). */
export type StoredType = 'string' | 'hash' | 'list' | 'zset';

/**
 * The `RUN_STATE_CORRUPT` error (not retried: a run that started over would repeat its steps, and
 * its tools) for a run whose stored state cannot be read: `what` says which record, and why.
 */
export function runStateCorrupt(runId: string, what: string): NonRetryableError {
  return new NonRetryableError({
    code: 'RUN_STATE_CORRUPT',
    message: `the stored state of run ${runId} cannot be read: ${what.slice(0, 400)}; the run fails rather than start over and repeat its steps`,
  });
}

/**
 * Runs `operation` on keys of one run's state. A `WRONGTYPE` reply (a key holds another kind of
 * value than agentq stores there) is not something a retry fixes: it becomes `RUN_STATE_CORRUPT`
 * naming the keys of `expected` that hold another type (asked with `TYPE` once the reply came, so
 * a script's error, which does not say its key, is named too). Any other error is thrown as is.
 */
export async function onRunState<T>(
  redis: RedisConnection,
  runId: string,
  expected: Readonly<Record<string, StoredType>>,
  operation: () => Promise<T>,
): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (!isWrongTypeError(error)) throw error;
    const keys = Object.keys(expected);
    const types = await Promise.all(keys.map(async (key) => await redis.type(key).catch(() => 'unknown')));
    const wrong = keys
      .map((key, index) => ({ key, type: types[index] }))
      .filter(({ key, type }) => type !== 'none' && type !== expected[key]);
    const named =
      wrong.length > 0
        ? wrong.map(({ key, type }) => `key ${key} holds a ${type}, not a ${expected[key]}`).join('; ')
        : `a key of its state holds another type of value than agentq stores there (checked: ${keys.join(', ')})`;
    throw runStateCorrupt(runId, `${named} (${(error as Error).message.split('\n')[0]})`);
  }
}
