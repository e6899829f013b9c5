/**
 * Whether Redis answers a `PING` within `timeoutMs`: the shared half of a role's readiness.
 */
export async function redisAnswers(redis: { ping(): Promise<string> }, timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return await Promise.race([redis.ping().then((answer) => answer === 'PONG'), timeout]);
  } catch {
    return false;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

/** Whether a Redis error reply says the key holds another type (its code, the first word, is `WRONGTYPE`). */
export function isWrongTypeError(error: Error): boolean {
  return error.message.startsWith('WRONGTYPE');
}
