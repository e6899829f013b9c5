import { createServer } from 'node:net';
import { AgentqError } from '../errors/agentq-error.js';

/** A port a process means to listen on, and the setting that picks it. */
export interface ListenTarget {
  /** What listens there, for the message: `the API`, `the agent worker's health listener`. */
  name: string;
  host: string;
  port: number;
  /** How to pick another port, for example `AGENTQ_API_PORT`. */
  setting: string;
}

/**
 * A failed listen as agentq reports it: `PORT_IN_USE` naming the address and the setting that picks
 * another port when the address is taken (`EADDRINUSE`), else the error as it is.
 */
export function listenError(error: unknown, target: ListenTarget): unknown {
  if ((error as { code?: unknown } | null)?.code !== 'EADDRINUSE') return error;
  return new AgentqError({
    code: 'PORT_IN_USE',
    message: `${target.name} cannot listen on ${target.host}:${target.port}: the port is in use. Pick another port with ${target.setting}`,
    cause: error,
  });
}

/**
 * Throws `PORT_IN_USE` for the first target whose port is taken, by binding it and letting go at
 * once; port 0 (any free one) is never taken. For a process that writes somewhere before it
 * listens: checked first, a busy port changes nothing.
 */
export async function assertPortsFree(targets: readonly ListenTarget[]): Promise<void> {
  for (const target of targets) {
    if (target.port === 0) continue;
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error) => reject(listenError(error, target)));
      server.listen(target.port, target.host, () => server.close(() => resolve()));
    });
  }
}
