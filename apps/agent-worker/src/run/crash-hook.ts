/** Points where a test can make the worker process die, set through `AGENTQ_TEST_CRASH_AT`. */
export type CrashPoint =
  | 'after-step'
  | 'after-checkpoint'
  | 'after-child-add'
  | 'after-resume'
  | 'before-tool'
  /** A tool's result is in the journal, its step's checkpoint is not written yet. */
  | 'after-tool-result';

const passed = new Map<string, number>();

/**
 * A test hook: when `AGENTQ_TEST_CRASH_AT` names `point` (comma-separated list allowed), the
 * process kills itself with SIGKILL, as a power cut would. Tests use it to prove every step is
 * idempotent. Inert unless the variable is set; `AGENTQ_TEST_CRASH_RUN` limits it to one run id,
 * and `AGENTQ_TEST_CRASH_SKIP=n` lets the first n hits of the point pass (to die in the middle of
 * a script's tool calls, say).
 */
export function crashPoint(point: CrashPoint, runId: string, env: Record<string, string | undefined>): void {
  const setting = env.AGENTQ_TEST_CRASH_AT;
  if (!setting) return;
  if (!setting.split(',').includes(point)) return;
  const onlyRun = env.AGENTQ_TEST_CRASH_RUN;
  if (onlyRun && onlyRun !== runId) return;
  const skip = Number(env.AGENTQ_TEST_CRASH_SKIP ?? 0);
  const hits = (passed.get(point) ?? 0) + 1;
  passed.set(point, hits);
  if (hits <= skip) return;
  process.kill(process.pid, 'SIGKILL');
}
