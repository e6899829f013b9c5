import type { AgentqClient } from '@agentq/client';
import { listenError, type Config, type Logger } from '@agentq/shared';
import type { FastifyInstance } from 'fastify';
import { buildApi } from './build-api.js';

/** Options of {@link startApi}. */
export interface StartApiOptions {
  config: Config;
  logger: Logger;
  /** An existing client to use; the API never closes it. */
  client?: AgentqClient;
  /** Where server definitions' secrets resolve (the OAuth "Connect" flow). @default process.env */
  env?: Record<string, string | undefined>;
  /** @default config.apiPort */
  port?: number;
  /** @default config.apiHost */
  host?: string;
}

/** A listening API. */
export interface RunningApi {
  app: FastifyInstance;
  /** Base URL, for example `http://127.0.0.1:3000`. */
  url: string;
  /** Stops listening and releases queues and connections. Idempotent. */
  close(): Promise<void>;
}

/** Builds the API and starts listening. */
export async function startApi(options: StartApiOptions): Promise<RunningApi> {
  const app = await buildApi(options);
  const host = options.host ?? options.config.apiHost;
  const wanted = options.port ?? options.config.apiPort;
  try {
    await app.listen({ port: wanted, host });
  } catch (error) {
    await app.close();
    throw listenError(error, { name: 'the API', host, port: wanted, setting: 'AGENTQ_API_PORT' });
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.config.apiPort;
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  let closing: Promise<void> | undefined;
  return {
    app,
    url: `http://${shownHost}:${port}`,
    close() {
      closing ??= app.close();
      return closing;
    },
  };
}
