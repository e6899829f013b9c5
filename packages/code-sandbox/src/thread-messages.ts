import type { SandboxLimits } from './sandbox-limits.js';
import type { ScriptOutcome } from './script-outcome.js';

/** From the host to the sandbox thread. */
export type ToThread =
  | { type: 'run'; scriptId: number; code: string; toolNames: readonly string[]; limits: SandboxLimits }
  | { type: 'abort'; scriptId: number }
  | { type: 'result'; scriptId: number; callId: number; json: string }
  | { type: 'error'; scriptId: number; callId: number; message: string };

/** From the sandbox thread to the host. */
export type FromThread =
  | { type: 'ready' }
  | { type: 'call'; scriptId: number; callId: number; name: string; argsJson: string }
  | { type: 'done'; scriptId: number; outcome: ScriptOutcome };
