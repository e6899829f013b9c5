import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten-core';
import { forgetQuickJs, loadQuickJs } from './load-quickjs.js';
import { resolveSandboxLimits, type SandboxLimits } from './sandbox-limits.js';
import type { ScriptFailureCode, ScriptOutcome } from './script-outcome.js';

/** What the script may call: each name becomes `tools.<name>(args)` inside it. */
export interface ScriptHost {
  /** Names the script sees under `tools`; any other name is a clear error inside the script. */
  toolNames: readonly string[];
  /**
   * Runs one tool call for the script. Calls arrive one at a time, in the order the script made
   * them, so their order (and any id derived from it) is the same each time the script runs.
   * Whatever it returns reaches the script as JSON; a throw becomes a rejected promise there.
   */
  callTool(name: string, args: unknown): Promise<unknown>;
}

/** Options of {@link runScript}. */
export interface RunScriptOptions {
  /** The body of an async function: it may `await` and `return` a JSON value. */
  code: string;
  host: ScriptHost;
  /** Caps; the ones left out take {@link DEFAULT_SANDBOX_LIMITS}. */
  limits?: Partial<SandboxLimits>;
  /** Aborts the script (the run was cancelled, say). */
  signal?: AbortSignal;
}

class Stop extends Error {
  constructor(
    readonly code: ScriptFailureCode,
    message: string,
  ) {
    super(message);
  }
}

// Runs in the fresh context before the script. It builds `tools` and `console` from two host
// functions taking and giving strings only, so that no host object ever enters the sandbox, and
// makes Math.random seeded: a script run again after a crash makes the same calls in the same order.
const PRELUDE = `(function (hostCall, hostLog, names) {
  'use strict';
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const api = Object.create(null);
  for (const name of names) {
    const call = async function (args) {
      const json = stringify(args === undefined ? {} : args);
      return parse(await hostCall(name, json === undefined ? '{}' : json));
    };
    Object.defineProperty(api, name, { value: call, enumerable: true });
  }
  Object.freeze(api);
  const known = names.join(', ');
  Object.defineProperty(globalThis, 'tools', {
    value: new Proxy(api, {
      get(target, key) {
        if (typeof key === 'string' && !(key in target) && key !== 'then' && key !== 'toJSON') {
          throw new TypeError('tools.' + key + ' does not exist. Available: ' + known);
        }
        return target[key];
      },
    }),
  });
  const show = (value) => (typeof value === 'string' ? value : stringify(value) ?? String(value));
  const log = (...values) => hostLog(values.map(show).join(' '));
  Object.defineProperty(globalThis, 'console', {
    value: Object.freeze({ log, info: log, warn: log, error: log, debug: log }),
  });
  let seed = 0x2545f491;
  Math.random = function () {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return stringify;
})`;

/**
 * Runs model-written JavaScript in a fresh QuickJS context of the shared WebAssembly module, and
 * returns what it returned (as JSON) or why it failed. Never throws for anything the script does.
 *
 * The script has no `require`, no modules, no filesystem, network, process or timers: only the
 * language, `tools` and `console`. It computes in stretches between tool calls, each interrupted
 * past `maxBlockingMs` so that the process's event loop (and every other run on it) keeps going;
 * the whole script is capped in wall time, compute time, memory, stack, tool calls and output.
 */
export async function runScript(options: RunScriptOptions): Promise<ScriptOutcome> {
  const limits = resolveSandboxLimits(options.limits);
  const module = await loadQuickJs();
  const startedAt = Date.now();
  const deadline = startedAt + limits.timeoutMs;
  const logs: string[] = [];
  let logBytes = 0;
  let toolCalls = 0;
  let cpuMs = 0;
  let sliceStartedAt: number | undefined;
  let stop: Stop | undefined;
  const halt = (reason: Stop) => {
    stop ??= reason;
    return true;
  };

  const runtime: QuickJSRuntime = module.newRuntime({
    memoryLimitBytes: limits.memoryLimitBytes,
    maxStackSizeBytes: limits.maxStackSizeBytes,
    interruptHandler: () => {
      if (stop) return true;
      const now = Date.now();
      if (options.signal?.aborted) return halt(new Stop('EXEC_ABORTED', 'The script was aborted.'));
      if (now > deadline) return halt(new Stop('EXEC_TIMEOUT', `The script ran longer than ${limits.timeoutMs} ms.`));
      if (sliceStartedAt !== undefined) {
        const slice = now - sliceStartedAt;
        if (slice > limits.maxBlockingMs) {
          return halt(
            new Stop('EXEC_CPU_LIMIT', `The script computed for more than ${limits.maxBlockingMs} ms without a pause.`),
          );
        }
        if (cpuMs + slice > limits.maxCpuMs) {
          return halt(new Stop('EXEC_CPU_LIMIT', `The script computed for more than ${limits.maxCpuMs} ms in all.`));
        }
      }
      return false;
    },
  });
  const context: QuickJSContext = runtime.newContext();
  const pending = new Set<QuickJSDeferredPromise>();
  const handles: QuickJSHandle[] = [];
  let finished = false;
  let wake: (() => void) | undefined;
  const notify = () => wake?.();
  // Tool calls run one after another, in the order the script made them.
  let queue: Promise<void> = Promise.resolve();

  const slice = <T>(work: () => T): T => {
    sliceStartedAt = Date.now();
    try {
      return work();
    } finally {
      cpuMs += Date.now() - sliceStartedAt;
      sliceStartedAt = undefined;
    }
  };
  const outcome = (failure?: Stop, value?: unknown): ScriptOutcome => {
    const durationMs = Date.now() - startedAt;
    return failure
      ? { ok: false, code: failure.code, message: failure.message, logs, toolCalls, durationMs }
      : { ok: true, value: value ?? null, logs, toolCalls, durationMs };
  };

  const onAbort = () => {
    halt(new Stop('EXEC_ABORTED', 'The script was aborted.'));
    notify();
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(() => {
    halt(new Stop('EXEC_TIMEOUT', `The script ran longer than ${limits.timeoutMs} ms.`));
    notify();
  }, limits.timeoutMs);

  try {
    const hostCall = context.newFunction('hostCall', (nameHandle, argsHandle) => {
      if (toolCalls >= limits.maxToolCalls) {
        halt(new Stop('EXEC_TOOL_CALL_LIMIT', `The script made more than ${limits.maxToolCalls} tool calls.`));
        throw new Error('tool call limit reached');
      }
      toolCalls += 1;
      const name = context.getString(nameHandle);
      const argsJson = context.getString(argsHandle);
      const deferred = context.newPromise();
      pending.add(deferred);
      const settle = (result: { json: string } | { error: string }) => {
        pending.delete(deferred);
        if (finished || !deferred.alive) return;
        if ('json' in result && result.json.length > limits.maxToolResultBytes) {
          result = { error: `The result of ${name} is larger than ${limits.maxToolResultBytes} bytes.` };
        }
        const valueHandle = 'json' in result ? context.newString(result.json) : context.newError(result.error);
        if ('json' in result) deferred.resolve(valueHandle);
        else deferred.reject(valueHandle);
        valueHandle.dispose();
        notify();
      };
      queue = queue.then(async () => {
        if (finished || stop) return settle({ error: 'The script has stopped.' });
        try {
          const value = await options.host.callTool(name, JSON.parse(argsJson) as unknown);
          settle({ json: JSON.stringify(value ?? null) });
        } catch (error) {
          settle({ error: error instanceof Error ? error.message : String(error) });
        }
      });
      return deferred.handle;
    });
    const hostLog = context.newFunction('hostLog', (lineHandle) => {
      const line = context.getString(lineHandle);
      if (logBytes + line.length > limits.maxLogBytes) {
        if (logBytes < limits.maxLogBytes) logs.push('[further output dropped]');
        logBytes = limits.maxLogBytes;
        return;
      }
      logBytes += line.length;
      logs.push(line);
    });
    const names = context.newArray();
    handles.push(hostCall, hostLog, names);
    options.host.toolNames.forEach((name, index) => {
      const nameHandle = context.newString(name);
      context.setProp(names, index, nameHandle);
      nameHandle.dispose();
    });

    const prelude = context.unwrapResult(context.evalCode(PRELUDE, 'prelude.js', { type: 'global', strict: true }));
    handles.push(prelude);
    const stringify = context.unwrapResult(context.callFunction(prelude, context.undefined, hostCall, hostLog, names));
    handles.push(stringify);

    // The script is the body of an async function, so it may await and return.
    const evaluated = slice(() =>
      context.evalCode(`(async () => {\n${options.code}\n})()`, 'script.js', { type: 'global' }),
    );
    if (evaluated.error) {
      const error = describeError(context, evaluated.error);
      evaluated.error.dispose();
      return outcome(
        stop ?? new Stop(error.name === 'SyntaxError' ? 'EXEC_SYNTAX_ERROR' : 'EXEC_SCRIPT_ERROR', error.text),
      );
    }
    const promise = evaluated.value;
    handles.push(promise);

    for (;;) {
      if (runtime.hasPendingJob()) {
        const jobs = slice(() => runtime.executePendingJobs());
        if (jobs.error) jobs.error.dispose();
        // Other work of the process gets its turn between stretches.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      if (stop) return outcome(stop);
      const state = context.getPromiseState(promise);
      if (state.type === 'fulfilled') {
        const value = readValue(context, stringify, state.value, limits.maxOutputBytes, slice);
        state.value.dispose();
        if (stop) return outcome(stop);
        return 'failure' in value ? outcome(value.failure) : outcome(undefined, value.value);
      }
      if (state.type === 'rejected') {
        const error = describeError(context, state.error);
        state.error.dispose();
        return outcome(stop ?? failureOf(error));
      }
      if (runtime.hasPendingJob()) continue;
      if (pending.size === 0) {
        return outcome(
          new Stop('EXEC_STALLED', 'The script awaits something that never happens (no tool call is pending).'),
        );
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
  } catch (error) {
    // The sandbox itself failed (the host ran out of memory copying a value, say): the script's
    // own stop reason, when it has one, says it better.
    return outcome(stop ?? new Stop('EXEC_SCRIPT_ERROR', error instanceof Error ? error.message : String(error)));
  } finally {
    finished = true;
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    for (const deferred of pending) deferred.dispose();
    try {
      for (const handle of handles.reverse()) if (handle.alive) handle.dispose();
      context.dispose();
      runtime.dispose();
    } catch {
      // QuickJS found its heap inconsistent and aborted: the module is unusable from here on, and
      // the next script gets a new one. This script's outcome stands.
      forgetQuickJs();
    }
  }
}

interface ErrorText {
  name: string;
  text: string;
}

function describeError(context: QuickJSContext, handle: QuickJSHandle): ErrorText {
  try {
    const dumped = context.dump(handle) as unknown;
    if (dumped && typeof dumped === 'object') {
      const { name, message } = dumped as { name?: unknown; message?: unknown };
      const errorName = typeof name === 'string' ? name : 'Error';
      return { name: errorName, text: `${errorName}: ${typeof message === 'string' ? message : String(message)}` };
    }
    return { name: 'Error', text: `Uncaught ${String(dumped)}` };
  } catch {
    return { name: 'Error', text: 'Uncaught error' };
  }
}

function failureOf(error: ErrorText): Stop {
  if (error.name === 'InternalError' && /out of memory|stack overflow/.test(error.text)) {
    return new Stop('EXEC_MEMORY_LIMIT', error.text);
  }
  if (error.name === 'SyntaxError') return new Stop('EXEC_SYNTAX_ERROR', error.text);
  return new Stop('EXEC_SCRIPT_ERROR', error.text);
}

function readValue(
  context: QuickJSContext,
  stringify: QuickJSHandle,
  value: QuickJSHandle,
  maxBytes: number,
  slice: <T>(work: () => T) => T,
): { value: unknown } | { failure: Stop } {
  if (context.typeof(value) === 'undefined') return { value: null };
  // The stringify captured before the script ran: replacing JSON.stringify changes nothing here.
  const result = slice(() => context.callFunction(stringify, context.undefined, value));
  if (result.error) {
    const error = describeError(context, result.error);
    result.error.dispose();
    return { failure: new Stop('EXEC_OUTPUT_INVALID', `The returned value is not JSON: ${error.text}`) };
  }
  const json = result.value;
  try {
    if (context.typeof(json) !== 'string') {
      return { failure: new Stop('EXEC_OUTPUT_INVALID', 'The returned value is not JSON (a function or a symbol).') };
    }
    // Measured inside before copying out, so a huge string never reaches the host.
    const lengthHandle = context.getProp(json, 'length');
    const length = context.getNumber(lengthHandle);
    lengthHandle.dispose();
    if (length > maxBytes) {
      return {
        failure: new Stop(
          'EXEC_OUTPUT_INVALID',
          `The returned value is ${length} characters as JSON, more than ${maxBytes}. Return less.`,
        ),
      };
    }
    const text = context.getString(json);
    if (Buffer.byteLength(text) > maxBytes) {
      return { failure: new Stop('EXEC_OUTPUT_INVALID', `The returned value is more than ${maxBytes} bytes as JSON.`) };
    }
    return { value: JSON.parse(text) as unknown };
  } finally {
    json.dispose();
  }
}
