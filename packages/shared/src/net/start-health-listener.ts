import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logging/logger.js';
import { listenError } from './port-in-use.js';

/** Options of {@link startHealthListener}. */
export interface HealthListenerOptions {
  /** Address to bind; `127.0.0.1` keeps it off the network. */
  host: string;
  /** Port; 0 picks a free one; `undefined` means no listener. */
  port: number | undefined;
  /** Whether the role can do its work now (Redis answers, its BullMQ worker runs). Never throws. */
  ready: () => Promise<boolean>;
  logger: Logger;
  /** Role name, in the listener's log line. */
  role: string;
  /** The setting that picks the port, named when it is taken, for example `AGENTQ_WORKER_HEALTH_PORT`. */
  portSetting: string;
}

/** A running health listener. */
export interface HealthListener {
  /** The port it listens on (the one picked when asked for 0). */
  readonly port: number;
  close(): Promise<void>;
}

/**
 * A small HTTP listener for a role without the API: `GET /healthz` answers 200 while the process
 * runs, `GET /readyz` 200 when `ready()` says so and 503 otherwise (bodies `{"status":...}`);
 * anything else is 404. It reads nothing from the request and says nothing about the deployment.
 * Resolves to `undefined`, starting nothing, when `port` is unset.
 */
export async function startHealthListener(options: HealthListenerOptions): Promise<HealthListener | undefined> {
  if (options.port === undefined) return undefined;
  const server = createServer((request, response) => {
    const send = (status: number, body: Record<string, string>): void => {
      response
        .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
        .end(JSON.stringify(body));
    };
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') send(405, { status: 'method not allowed' });
    else if (path === '/healthz') send(200, { status: 'ok' });
    else if (path !== '/readyz') send(404, { status: 'not found' });
    else
      options.ready().then(
        (ready) => send(ready ? 200 : 503, { status: ready ? 'ready' : 'not ready' }),
        () => send(503, { status: 'not ready' }),
      );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        listenError(error, {
          name: `the ${options.role} health listener`,
          host: options.host,
          port: options.port as number,
          setting: options.portSetting,
        }),
      ),
    );
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  options.logger.info({ host: options.host, port, role: options.role }, 'health listener started');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
