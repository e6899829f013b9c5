import type { RedisConnection } from './create-redis-connection.js';

/**
 * Redis's clock, in epoch ms (`TIME`): the one clock approval expiry is judged by, so that every
 * worker, client and sweeper agrees on it whatever its own clock says. Under cluster mode, the
 * clock of whichever node answers.
 */
export async function redisTime(redis: RedisConnection): Promise<number> {
  const [seconds, microseconds] = await redis.time();
  return Number(seconds) * 1000 + Math.floor(Number(microseconds) / 1000);
}
