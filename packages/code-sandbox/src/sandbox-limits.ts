/** The caps every script runs under. */
export interface SandboxLimits {
  /** The script's heap, in bytes. An allocation past it fails inside the script. @default 33554432 (32 MiB) */
  memoryLimitBytes: number;
  /**
   * The script's stack, in bytes: deep recursion fails with a stack overflow. At most
   * {@link MAX_STACK_SIZE_BYTES}: past that the host's own stack would overflow first.
   * @default 131072 (128 KiB)
   */
  maxStackSizeBytes: number;
  /** Wall time of the whole script, tool calls included. @default 30000 */
  timeoutMs: number;
  /**
   * Longest stretch the script may compute without giving the event loop back, in milliseconds: the
   * most a script can delay the other work of its process. @default 250
   */
  maxBlockingMs: number;
  /** Compute time of the whole script, summed over its stretches (tool calls not counted). @default 2000 */
  maxCpuMs: number;
  /** Tool calls one script may make. @default 100 */
  maxToolCalls: number;
  /** Size of the returned value, as JSON, in bytes. @default 32768 */
  maxOutputBytes: number;
  /** Size of what the script logs with `console.log`, in bytes; later lines are dropped. @default 4096 */
  maxLogBytes: number;
  /** Size of one tool result handed to the script, as JSON, in bytes. @default 4194304 (4 MiB) */
  maxToolResultBytes: number;
}

/**
 * Largest script stack. The interpreter's frames live on the host thread's stack; a larger cap lets
 * that stack overflow before QuickJS notices, which leaves the runtime unusable.
 */
export const MAX_STACK_SIZE_BYTES = 256 * 1024;

/** The default caps. */
export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  memoryLimitBytes: 32 * 1024 * 1024,
  maxStackSizeBytes: 128 * 1024,
  timeoutMs: 30_000,
  maxBlockingMs: 250,
  maxCpuMs: 2_000,
  maxToolCalls: 100,
  maxOutputBytes: 32 * 1024,
  maxLogBytes: 4 * 1024,
  maxToolResultBytes: 4 * 1024 * 1024,
});

/**
 * Fills the caps a caller left out with the defaults, and refuses a cap that is not a positive
 * whole number: a zero or negative cap would make every script fail in a way that looks like the
 * script's fault.
 */
export function resolveSandboxLimits(limits: Partial<SandboxLimits> = {}): SandboxLimits {
  const resolved: SandboxLimits = { ...DEFAULT_SANDBOX_LIMITS };
  for (const [key, value] of Object.entries(limits) as [keyof SandboxLimits, number | undefined][]) {
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new RangeError(`sandbox limit ${key} must be a positive whole number, got ${String(value)}`);
    }
    resolved[key] = value;
  }
  resolved.maxStackSizeBytes = Math.min(resolved.maxStackSizeBytes, MAX_STACK_SIZE_BYTES);
  return resolved;
}
