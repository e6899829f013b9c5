/** Why a script did not return a value. */
export type ScriptFailureCode =
  /** The code does not parse. */
  | 'EXEC_SYNTAX_ERROR'
  /** The script threw (or its promise rejected) with an error of its own. */
  | 'EXEC_SCRIPT_ERROR'
  /** The whole script took longer than `timeoutMs`. */
  | 'EXEC_TIMEOUT'
  /** The script computed without a pause for longer than `maxBlockingMs`, or longer than `maxCpuMs` in all. */
  | 'EXEC_CPU_LIMIT'
  /** The script ran out of its heap (`memoryLimitBytes`) or its stack. */
  | 'EXEC_MEMORY_LIMIT'
  /** The script made more tool calls than `maxToolCalls`. */
  | 'EXEC_TOOL_CALL_LIMIT'
  /** The returned value is larger than `maxOutputBytes` as JSON, or is not JSON. */
  | 'EXEC_OUTPUT_INVALID'
  /** The script waits for something that can never happen (no tool call is pending). */
  | 'EXEC_STALLED'
  /** The caller's signal aborted the script. */
  | 'EXEC_ABORTED'
  /** The sandbox thread stopped under the script (another script ran away, or the sandbox closed). */
  | 'EXEC_SANDBOX_FAILED';

/** What a script came to. */
export type ScriptOutcome =
  | {
      ok: true;
      /** The returned value, as JSON would carry it; `null` when the script returned nothing. */
      value: unknown;
      logs: string[];
      toolCalls: number;
      durationMs: number;
    }
  | {
      ok: false;
      code: ScriptFailureCode;
      message: string;
      logs: string[];
      toolCalls: number;
      durationMs: number;
    };
