import { DEFAULT_SANDBOX_LIMITS } from '@agentq/code-sandbox';
import { loadConfig } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { codeSandboxLimitsOf } from './code-sandbox-limits.js';

describe('codeSandboxLimitsOf', () => {
  it("defaults to the sandbox's own caps", () => {
    expect(codeSandboxLimitsOf(loadConfig({}))).toEqual(DEFAULT_SANDBOX_LIMITS);
  });

  it('passes each variable to its cap', () => {
    const limits = codeSandboxLimitsOf(
      loadConfig({
        AGENTQ_CODE_MODE_TIMEOUT_MS: '1000',
        AGENTQ_CODE_MODE_MAX_BLOCKING_MS: '10',
        AGENTQ_CODE_MODE_MAX_CPU_MS: '20',
        AGENTQ_CODE_MODE_MEMORY_LIMIT_BYTES: '1048576',
        AGENTQ_CODE_MODE_MAX_STACK_BYTES: '65536',
        AGENTQ_CODE_MODE_MAX_TOOL_CALLS: '3',
        AGENTQ_CODE_MODE_MAX_OUTPUT_BYTES: '512',
        AGENTQ_CODE_MODE_MAX_LOG_BYTES: '256',
        AGENTQ_CODE_MODE_MAX_TOOL_RESULT_BYTES: '2048',
      }),
    );
    expect(limits).toEqual({
      timeoutMs: 1000,
      maxBlockingMs: 10,
      maxCpuMs: 20,
      memoryLimitBytes: 1_048_576,
      maxStackSizeBytes: 65_536,
      maxToolCalls: 3,
      maxOutputBytes: 512,
      maxLogBytes: 256,
      maxToolResultBytes: 2048,
    });
  });
});
