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

/**
 * Whether `error` is Redis's `WRONGTYPE` reply (a key holds another type of value), on its own or
 * inside the error of a script (`ERR Error running script … WRONGTYPE …` before Redis 7).
 */
export function isWrongTypeError(error: unknown): boolean {
  return error instanceof Error && /\bWRONGTYPE\b/.test(error.message);
}
