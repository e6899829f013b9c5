import type { SandboxLimits } from '@agentq/code-sandbox';
import type { Config } from '@agentq/shared';

/**
 * The code sandbox's caps as the operator set them (`AGENTQ_CODE_MODE_*`). The configuration has
 * already refused a value that is not a positive whole number, naming its variable, so a bad cap
 * stops the worker at start-up rather than failing every script.
 */
export function codeSandboxLimitsOf(config: Config): SandboxLimits {
  return {
    timeoutMs: config.codeModeTimeoutMs,
    maxBlockingMs: config.codeModeMaxBlockingMs,
    maxCpuMs: config.codeModeMaxCpuMs,
    memoryLimitBytes: config.codeModeMemoryLimitBytes,
    maxStackSizeBytes: config.codeModeMaxStackBytes,
    maxToolCalls: config.codeModeMaxToolCalls,
    maxOutputBytes: config.codeModeMaxOutputBytes,
    maxLogBytes: config.codeModeMaxLogBytes,
    maxToolResultBytes: config.codeModeMaxToolResultBytes,
  };
}
