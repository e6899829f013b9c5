import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A plain HTTP server on 127.0.0.1 that sees every request as sent (Host header included). */
export interface RawLoopbackServer {
  port: number;
  /** Drops open connections (a body that never ends among them) and stops listening. */
  close(): Promise<void>;
}

/**
 * Starts `listener` on 127.0.0.1 with a free port. Every loopback name (`localhost`,
 * `evil.localhost`) reaches it, so a test tells "hosts" apart by the Host header.
 */
export async function startRawLoopbackServer(listener: RequestListener): Promise<RawLoopbackServer> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
