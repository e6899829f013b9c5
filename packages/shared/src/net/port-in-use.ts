import { createServer } from 'node:net';
import { listenFailed } from './listen-failed.js';

/** A port a process means to listen on, and the variables that set it. */
export interface ListenTarget {
  /** What listens there, for the message: `API`, `agent-worker health listener`. */
  what: string;
  host: string;
  port: number;
  hostVariable: string;
  portVariable: string;
}

/**
 * Throws `PORT_IN_USE` (or `LISTEN_FAILED`) for the first target that cannot be bound, by binding
 * it and letting go at once; port 0 (any free one) is never taken. For a process that writes
 * somewhere before it listens: checked first, a busy port changes nothing.
 */
export async function assertPortsFree(targets: readonly ListenTarget[]): Promise<void> {
  for (const target of targets) {
    if (target.port === 0) continue;
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenFailed(error, target)));
      server.listen(target.port, target.host, () => server.close(() => resolve()));
    });
  }
}
