import { Worker } from 'node:worker_threads';
import type { ScriptHost } from './run-script.js';
import { resolveSandboxLimits, type SandboxLimits } from './sandbox-limits.js';
import type { ScriptFailureCode, ScriptOutcome } from './script-outcome.js';
import type { FromThread, ToThread } from './thread-messages.js';

/** Options of {@link createCodeSandbox}. */
export interface CodeSandboxOptions {
  /** Caps of every script; the ones left out take {@link DEFAULT_SANDBOX_LIMITS}. */
  limits?: Partial<SandboxLimits>;
  /**
   * How long past its `timeoutMs` a script may go without answering before its thread is stopped
   * from outside (a single costly builtin, such as a huge `String.prototype.repeat`, runs between
   * two interrupt checks). @default 1000
   */
  killGraceMs?: number;
}

/** One request to {@link CodeSandbox.run}. */
export interface CodeSandboxRequest {
  /** The body of an async function: it may `await` and `return` a JSON value. */
  code: string;
  host: ScriptHost;
  signal?: AbortSignal;
}

/** Runs scripts on a sandbox thread of their own, apart from the process's event loop. */
export interface CodeSandbox {
  /** Runs one script in a fresh context; never throws for anything the script does. */
  run(request: CodeSandboxRequest): Promise<ScriptOutcome>;
  /** Starts the thread and loads the module now, instead of on the first script. */
  warm(): Promise<void>;
  /** Stops the thread; scripts in flight end with `EXEC_SANDBOX_FAILED`. Idempotent. */
  close(): Promise<void>;
}

interface InFlight {
  host: ScriptHost;
  startedAt: number;
  finish: (outcome: ScriptOutcome) => void;
}

interface SandboxThread {
  worker: Worker;
  ready: Promise<void>;
  scripts: Map<number, InFlight>;
  stopped: boolean;
}

const threadUrl = new URL('./sandbox-thread-entry.mjs', import.meta.url);

/**
 * A sandbox for model-written JavaScript: QuickJS compiled to WebAssembly, on one worker thread
 * per sandbox, started on first use and kept. The module is loaded once per thread; each script
 * gets a fresh runtime and context with its own caps. Tool calls come back to this thread, to the
 * host's `callTool`, one at a time in script order.
 *
 * The thread keeps the process's event loop free whatever a script does. Inside, a script is
 * interrupted past its caps; one that still does not answer by `timeoutMs + killGraceMs` (a costly
 * builtin between two interrupt checks) has its thread stopped from here, and the next script
 * starts a new one. Scripts that shared the stopped thread end with `EXEC_SANDBOX_FAILED`.
 */
export function createCodeSandbox(options: CodeSandboxOptions = {}): CodeSandbox {
  const limits = resolveSandboxLimits(options.limits);
  const killGraceMs = options.killGraceMs ?? 1000;
  let current: SandboxThread | undefined;
  let nextScriptId = 0;
  let closing: Promise<void> | undefined;

  const failure = (code: ScriptFailureCode, message: string, startedAt: number): ScriptOutcome => ({
    ok: false,
    code,
    message,
    logs: [],
    toolCalls: 0,
    durationMs: Date.now() - startedAt,
  });

  const stopThread = (
    thread: SandboxThread,
    reason: { scriptId?: number; code: ScriptFailureCode; message: string },
  ) => {
    if (thread.stopped) return;
    thread.stopped = true;
    if (current === thread) current = undefined;
    void thread.worker.terminate();
    for (const [scriptId, script] of thread.scripts) {
      script.finish(
        scriptId === reason.scriptId
          ? failure(reason.code, reason.message, script.startedAt)
          : failure(
              'EXEC_SANDBOX_FAILED',
              'The sandbox stopped while this script ran (another script exceeded its caps). Run it again.',
              script.startedAt,
            ),
      );
    }
    thread.scripts.clear();
  };

  const startThread = (): SandboxThread => {
    const worker = new Worker(threadUrl);
    worker.unref();
    let markReady: () => void = () => undefined;
    let markFailed: (error: Error) => void = () => undefined;
    const ready = new Promise<void>((resolve, reject) => {
      markReady = resolve;
      markFailed = reject;
    });
    ready.catch(() => undefined);
    const thread: SandboxThread = { worker, ready, scripts: new Map(), stopped: false };
    const post = (message: ToThread) => {
      if (!thread.stopped) worker.postMessage(message);
    };
    worker.on('message', (message: FromThread) => {
      if (message.type === 'ready') return markReady();
      const script = thread.scripts.get(message.scriptId);
      if (!script) return;
      if (message.type === 'done') {
        thread.scripts.delete(message.scriptId);
        script.finish(message.outcome);
        return;
      }
      const { scriptId, callId } = message;
      void (async () => {
        try {
          const value = await script.host.callTool(message.name, JSON.parse(message.argsJson) as unknown);
          post({ type: 'result', scriptId, callId, json: JSON.stringify(value ?? null) });
        } catch (error) {
          post({ type: 'error', scriptId, callId, message: error instanceof Error ? error.message : String(error) });
        }
      })();
    });
    const onGone = (error?: Error) => {
      markFailed(error ?? new Error('the sandbox thread exited'));
      stopThread(thread, {
        code: 'EXEC_SANDBOX_FAILED',
        message: `The sandbox failed: ${error?.message ?? 'it exited'}.`,
      });
    };
    worker.on('error', onGone);
    worker.on('exit', () => onGone());
    return thread;
  };

  const threadOf = (): SandboxThread => (current ??= startThread());

  return {
    async warm() {
      await threadOf().ready;
    },
    async run(request) {
      const startedAt = Date.now();
      if (closing) return failure('EXEC_SANDBOX_FAILED', 'The sandbox is closed.', startedAt);
      const thread = threadOf();
      const scriptId = (nextScriptId += 1);
      return await new Promise<ScriptOutcome>((resolve) => {
        let killTimer: NodeJS.Timeout | undefined;
        const onAbort = () => {
          if (!thread.stopped) thread.worker.postMessage({ type: 'abort', scriptId } satisfies ToThread);
        };
        const finish = (outcome: ScriptOutcome) => {
          clearTimeout(killTimer);
          request.signal?.removeEventListener('abort', onAbort);
          resolve(outcome);
        };
        thread.scripts.set(scriptId, { host: request.host, startedAt, finish });
        request.signal?.addEventListener('abort', onAbort, { once: true });
        thread.worker.postMessage({
          type: 'run',
          scriptId,
          code: request.code,
          toolNames: [...request.host.toolNames],
          limits,
        } satisfies ToThread);
        if (request.signal?.aborted) onAbort();
        // Counted from when the thread can run it: the first script also waits for the module.
        void thread.ready.then(() => {
          if (!thread.scripts.has(scriptId)) return;
          killTimer = setTimeout(
            () =>
              stopThread(thread, {
                scriptId,
                code: 'EXEC_TIMEOUT',
                message: `The script ran longer than ${limits.timeoutMs} ms and its sandbox was stopped.`,
              }),
            limits.timeoutMs + killGraceMs,
          );
        });
      });
    },
    close() {
      closing ??= (async () => {
        const thread = current;
        if (thread) stopThread(thread, { code: 'EXEC_SANDBOX_FAILED', message: 'The sandbox was closed.' });
      })();
      return closing;
    },
  };
}
