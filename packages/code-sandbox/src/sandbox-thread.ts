import { parentPort } from 'node:worker_threads';
import { loadQuickJs } from './load-quickjs.js';
import { runScript } from './run-script.js';
import type { FromThread, ToThread } from './thread-messages.js';

// The sandbox thread: runs the scripts the host sends, each in its own QuickJS context of the
// module this thread loads once, and forwards their tool calls to the host.
const port = parentPort;
if (!port) throw new Error('sandbox-thread must run in a worker thread');

const post = (message: FromThread) => port.postMessage(message);
const aborts = new Map<number, AbortController>();
const calls = new Map<number, { resolve: (json: string) => void; reject: (error: Error) => void }>();
let nextCallId = 0;

port.on('message', (message: ToThread) => {
  switch (message.type) {
    case 'run': {
      const abort = new AbortController();
      aborts.set(message.scriptId, abort);
      const { scriptId } = message;
      void runScript({
        code: message.code,
        limits: message.limits,
        signal: abort.signal,
        host: {
          toolNames: message.toolNames,
          callTool: (name, args) =>
            new Promise<unknown>((resolve, reject) => {
              const callId = (nextCallId += 1);
              calls.set(callId, {
                resolve: (json) => resolve(JSON.parse(json) as unknown),
                reject,
              });
              post({ type: 'call', scriptId, callId, name, argsJson: JSON.stringify(args ?? {}) });
            }),
        },
      }).then((outcome) => {
        aborts.delete(scriptId);
        post({ type: 'done', scriptId, outcome });
      });
      return;
    }
    case 'abort':
      aborts.get(message.scriptId)?.abort();
      return;
    case 'result':
    case 'error': {
      const call = calls.get(message.callId);
      calls.delete(message.callId);
      if (message.type === 'result') call?.resolve(message.json);
      else call?.reject(new Error(message.message));
      return;
    }
  }
});

void loadQuickJs().then(() => post({ type: 'ready' }));
