// Entry of an HTML conversion thread. The thread's code is TypeScript, like the rest of the
// package; Node 20 does not hand a parent's `--import tsx` hooks to worker threads, so the thread
// registers tsx itself, then loads its module.
import { register } from 'tsx/esm/api';

register();
await import('./html-to-markdown-thread.ts');
