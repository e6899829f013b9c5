/**
 * Runs one SDK request under a short-lived child of `parent`. The SDK leaves its abort listener on
 * the signal it is given; a fresh signal per request keeps a long-lived signal (a job's, a
 * pagination's) from piling listeners up.
 */
export async function withRequestSignal<T>(
  parent: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const abort = () => controller.abort(parent?.reason);
  if (parent?.aborted) abort();
  parent?.addEventListener('abort', abort, { once: true });
  try {
    return await run(controller.signal);
  } finally {
    parent?.removeEventListener('abort', abort);
  }
}
