import { Worker } from 'node:worker_threads';
import { AgentqError, type Logger } from '@agentq/shared';
import type { HtmlConversionRequest } from './html-to-markdown-thread.js';
import { htmlToMarkdown, type HtmlToMarkdownOptions, type ReadablePage } from '@agentq/kb/html-to-markdown';
import { WEB_FETCH_ERROR_CODES } from './web-fetch-error-codes.js';

/** Converts HTML pages to Markdown, on other threads or on the calling one. */
export interface HtmlConverter {
  /**
   * The page as {@link htmlToMarkdown} gives it. An abort rejects at once with the signal's
   * reason; a conversion running on a thread is stopped with its thread.
   */
  convert(html: string, options?: HtmlToMarkdownOptions & { signal?: AbortSignal }): Promise<ReadablePage>;
  /**
   * Starts the threads now rather than on the first page, and resolves once they can take pages
   * (or once conversions have fallen back to the calling thread).
   */
  start(): Promise<void>;
  /** Stops the threads; conversions not finished are rejected. Idempotent. */
  close(): Promise<void>;
}

/** Options of {@link createHtmlConverter}. */
export interface HtmlConverterOptions {
  /** Conversion threads; `0` converts on the calling thread, holding its event loop. @default 1 */
  threads?: number;
  /** Told when threads cannot start and conversions fall back to the calling thread. @default none */
  logger?: Logger;
}

/** A message from a conversion thread. */
type ThreadAnswer = { ready: true } | { id: number; page: ReadablePage } | { id: number; error: string };

interface Conversion {
  request: HtmlConversionRequest;
  signal: AbortSignal | undefined;
  resolve(page: ReadablePage): void;
  reject(error: unknown): void;
  cleanup(): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  /** Settles when the thread has loaded its modules, or has failed to. */
  started: Promise<void>;
  running: Conversion | undefined;
}

/** A JavaScript entry that registers tsx, which every agentq process runs under, then loads the thread's TypeScript module. */
const threadUrl = new URL('./html-to-markdown-thread.mjs', import.meta.url);

function conversionError(message: string): AgentqError {
  return new AgentqError({
    code: WEB_FETCH_ERROR_CODES.conversion,
    message: `web_fetch: the HTML could not be converted: ${message}`,
  });
}

/**
 * Creates a pool of conversion threads. Parsing a large page, scoring it with Readability and
 * writing Markdown takes tens to hundreds of milliseconds of CPU; on a thread of its own it does
 * not hold the event loop of an agent worker that is running other runs (their model streams, tool
 * calls and job lock renewals go on meanwhile). Threads start on first use (or on `start()`), take
 * one page at a time from a queue, and do not keep the process alive when idle. Loading a thread
 * takes a while (seconds on a busy machine): until one is ready, pages are converted on the
 * calling thread rather than kept waiting. A thread that dies is replaced on the next conversion;
 * if threads cannot start at all, conversions run on the calling thread, and the logger is told
 * once.
 */
export function createHtmlConverter(options: HtmlConverterOptions = {}): HtmlConverter {
  const maxThreads = Math.max(0, Math.floor(options.threads ?? 1));
  const threads: Thread[] = [];
  const queue: Conversion[] = [];
  let nextId = 1;
  let inline = maxThreads === 0;
  let closed = false;

  function convertInline(conversion: Conversion): void {
    conversion.cleanup();
    try {
      conversion.resolve(htmlToMarkdown(conversion.request.html, conversion.request.options));
    } catch (error) {
      conversion.reject(conversionError(error instanceof Error ? error.message : String(error)));
    }
  }

  function fallBack(reason: string): void {
    if (inline) return;
    inline = true;
    options.logger?.warn({ reason }, 'HTML conversion threads could not start; converting on the calling thread');
    for (const thread of threads.splice(0)) {
      const running = thread.running;
      thread.running = undefined;
      void thread.worker.terminate();
      if (running) queue.unshift(running);
    }
    for (const conversion of queue.splice(0)) convertInline(conversion);
  }

  function settle(thread: Thread, answer: ThreadAnswer): void {
    if ('ready' in answer) {
      thread.ready = true;
      pump();
      return;
    }
    const conversion = thread.running;
    if (!conversion || conversion.request.id !== answer.id) return;
    thread.running = undefined;
    thread.worker.unref();
    conversion.cleanup();
    if ('page' in answer) conversion.resolve(answer.page);
    else conversion.reject(conversionError(answer.error));
    pump();
  }

  function spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(threadUrl);
    } catch (error) {
      fallBack(error instanceof Error ? error.message : String(error));
      return;
    }
    let markStarted = () => {};
    const started = new Promise<void>((resolve) => {
      markStarted = resolve;
    });
    const thread: Thread = { worker, ready: false, started, running: undefined };
    worker.unref();
    worker.on('message', (answer: ThreadAnswer) => {
      if ('ready' in answer) markStarted();
      settle(thread, answer);
    });
    worker.on('error', (error) => {
      if (!thread.ready) fallBack(error.message);
    });
    worker.on('exit', (exitCode) => {
      markStarted();
      const index = threads.indexOf(thread);
      if (index >= 0) threads.splice(index, 1);
      const running = thread.running;
      thread.running = undefined;
      if (running) {
        running.cleanup();
        running.reject(conversionError(`the conversion thread stopped (exit code ${exitCode})`));
      }
      if (!closed && !inline) pump();
    });
    threads.push(thread);
  }

  function pump(): void {
    while (queue.length > 0 && !closed) {
      if (inline) {
        for (const conversion of queue.splice(0)) convertInline(conversion);
        return;
      }
      const thread = threads.find((candidate) => candidate.ready && candidate.running === undefined);
      if (!thread) {
        if (threads.length < maxThreads) spawn();
        // A ready thread is busy: the page waits for it. No thread is ready yet: the page is
        // converted here rather than kept waiting for a thread to load.
        if (inline) continue;
        if (threads.some((candidate) => candidate.ready)) return;
        convertInline(queue.shift() as Conversion);
        continue;
      }
      const conversion = queue.shift() as Conversion;
      thread.running = conversion;
      // Kept alive while it works, so a caller awaiting only this conversion still gets it.
      thread.worker.ref();
      thread.worker.postMessage(conversion.request);
    }
  }

  function abort(conversion: Conversion): void {
    const queued = queue.indexOf(conversion);
    if (queued >= 0) queue.splice(queued, 1);
    const thread = threads.find((candidate) => candidate.running === conversion);
    if (thread) {
      // The thread is busy with a page no one waits for any more: stop it, a new one starts on demand.
      thread.running = undefined;
      const index = threads.indexOf(thread);
      if (index >= 0) threads.splice(index, 1);
      void thread.worker.terminate();
    }
    conversion.cleanup();
    conversion.reject(conversion.signal?.reason);
    pump();
  }

  return {
    convert(html, { signal, ...convertOptions } = {}) {
      if (closed) return Promise.reject(conversionError('the converter is closed'));
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<ReadablePage>((resolve, reject) => {
        const conversion: Conversion = {
          request: { id: nextId++, html, options: convertOptions },
          signal,
          resolve,
          reject,
          cleanup: () => signal?.removeEventListener('abort', onAbort),
        };
        const onAbort = () => abort(conversion);
        signal?.addEventListener('abort', onAbort, { once: true });
        queue.push(conversion);
        pump();
      });
    },
    async start() {
      while (!closed && !inline && threads.length < maxThreads) spawn();
      await Promise.all(threads.map((thread) => thread.started));
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const conversion of queue.splice(0)) {
        conversion.cleanup();
        conversion.reject(conversionError('the converter is closed'));
      }
      await Promise.all(threads.splice(0).map((thread) => thread.worker.terminate()));
    },
  };
}

let shared: HtmlConverter | undefined;

/**
 * The converter fetchers use by default: one thread for the process, started on the first HTML
 * page. The thread does not keep the process alive when idle, so nothing needs to close it.
 */
export function sharedHtmlConverter(): HtmlConverter {
  shared ??= createHtmlConverter({ threads: 1 });
  return shared;
}
