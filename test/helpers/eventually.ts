import { vi } from 'vitest';

/**
 * Waits until `check` holds, by `vi.waitFor`: the one polling wait of the integration tests. The
 * bound is generous (30 s by default) so that a busy machine slows a test down instead of failing
 * it; the failure names `what` was awaited.
 */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  what: string,
  options: { timeout?: number; interval?: number } = {},
): Promise<void> {
  await vi.waitFor(
    async () => {
      if (!(await check())) throw new Error(`still waiting for ${what}`);
    },
    { timeout: options.timeout ?? 30_000, interval: options.interval ?? 20 },
  );
}
