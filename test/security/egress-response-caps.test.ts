import type { IncomingMessage, ServerResponse } from 'node:http';
import { createWebSearch } from '@agentq/builtin-tools';
import { connectMcpServer } from '@agentq/mcp-connect';
import { createEmbedder } from '@agentq/models';
import { loadConfig, serverDefinitionSchema, silentLogger } from '@agentq/shared';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fetchErrorCode } from '../helpers/fetch-error-code.js';
import { startRawLoopbackServer, type RawLoopbackServer } from '../helpers/raw-loopback-server.js';

// Hole 6 (the outbound part): what another host answers is read up to a cap. Each endpoint here
// streams a body that never ends; a reader without a cap would wait (and buffer) until a timeout.

const embeddingKey = 'embedding-key-0d9c8b7a';

interface Seen {
  path: string;
  host: string;
  authorization: string | undefined;
}

describe('egress: response size caps', () => {
  const seen: Seen[] = [];
  let server: RawLoopbackServer;
  let port: number;
  let openStreams = 0;

  /** Writes `{"results":[` and then spaces, forever, until the client goes away. */
  function stream(response: ServerResponse, status: number): void {
    openStreams += 1;
    response.on('close', () => {
      openStreams -= 1;
    });
    response.writeHead(status, { 'content-type': 'application/json' });
    response.write(status === 200 ? '{"results":[' : 'upstream failed: ');
    const chunk = ' '.repeat(16_384);
    const pump = () => {
      while (!response.destroyed && response.write(chunk));
      if (!response.destroyed) response.once('drain', pump);
    };
    pump();
  }

  beforeAll(async () => {
    server = await startRawLoopbackServer((request: IncomingMessage, response: ServerResponse) => {
      const path = request.url ?? '/';
      seen.push({
        path,
        host: (request.headers.host ?? '').replace(/:\d+$/, ''),
        authorization: request.headers.authorization,
      });
      request.resume();
      if (path.startsWith('/redirect')) {
        const host = path.startsWith('/redirect-local/') ? 'localhost' : 'other.localhost';
        response.writeHead(307, { location: `http://${host}:${port}/v1/embeddings` });
        response.end();
        return;
      }
      stream(response, path.startsWith('/error') ? 500 : 200);
    });
    port = server.port;
  });

  afterAll(async () => {
    await server?.close();
  });

  beforeEach(() => {
    seen.length = 0;
  });

  const search = (path: string) =>
    createWebSearch({
      config: loadConfig({
        AGENTQ_SEARXNG_URL: `http://127.0.0.1:${port}${path}`,
        AGENTQ_WEB_SEARCH_MAX_BYTES: '65536',
        AGENTQ_WEB_SEARCH_TIMEOUT_MS: '60000',
      }),
      env: {},
    });

  it('a search answer past AGENTQ_WEB_SEARCH_MAX_BYTES fails the call and the stream is dropped', async () => {
    expect(await fetchErrorCode(search('/ok').search({ query: 'tides', limit: 3 }))).toBe('WEB_SEARCH_FAILED');
    await vi.waitFor(() => expect(openStreams).toBe(0), { timeout: 30_000 });
  });

  it('an endless error answer is read only up to AGENTQ_ERROR_BODY_MAX_BYTES', async () => {
    expect(await fetchErrorCode(search('/error').search({ query: 'tides', limit: 3 }))).toBe('WEB_SEARCH_FAILED');
    await vi.waitFor(() => expect(openStreams).toBe(0), { timeout: 30_000 });
  });

  const embedder = (path: string) =>
    createEmbedder(
      {
        ...loadConfig({
          AGENTQ_EMBEDDING_MODEL: 'openai-compatible:tiny',
          AGENTQ_EMBEDDING_BASE_URL: `http://localhost:${port}${path}`,
          OPENAI_COMPATIBLE_API_KEY: embeddingKey,
          AGENTQ_EMBEDDING_MAX_BYTES: '65536',
          // The redirect target is reachable: only the secret rules keep the key from it.
          AGENTQ_FETCH_ALLOW_HOSTS: '*.localhost',
        }),
      },
      { maxRetries: 0 },
    );

  it('an embedding answer past AGENTQ_EMBEDDING_MAX_BYTES fails with EMBEDDING_TOO_LARGE', async () => {
    expect(await fetchErrorCode(embedder('/v1')!.embed(['a text']))).toBe('EMBEDDING_TOO_LARGE');
    await vi.waitFor(() => expect(openStreams).toBe(0), { timeout: 30_000 });
    expect(seen[0]?.authorization).toBe(`Bearer ${embeddingKey}`);
  });

  it('embedding calls go through the guard: the key never follows a redirect to another host', async () => {
    await embedder('/redirect/v1')!
      .embed(['a text'])
      .catch(() => undefined);
    expect(seen[0]?.host).toBe('localhost');
    for (const hit of seen.filter((each) => each.host !== 'localhost')) {
      expect(hit.authorization).toBeUndefined();
    }
  });

  it('embedding calls go through the guard: a private address other than the configured one is refused', async () => {
    const config = loadConfig({
      AGENTQ_EMBEDDING_MODEL: 'openai-compatible:tiny',
      AGENTQ_EMBEDDING_BASE_URL: `http://127.0.0.1:${port}/redirect-local/v1`,
    });
    expect(await fetchErrorCode(createEmbedder(config, { maxRetries: 0 })!.embed(['a text']))).not.toBeUndefined();
    expect(seen.map((each) => each.host)).toEqual(['127.0.0.1']);
  });

  it('an MCP server answering an endless error body fails the connect instead of being buffered', async () => {
    const definition = serverDefinitionSchema.parse({
      id: 'endless-error',
      transport: { type: 'streamable-http', url: `http://127.0.0.1:${port}/error/mcp` },
      timeouts: { connectMs: 60_000 },
    });
    const connecting = connectMcpServer({
      definition,
      logger: silentLogger(),
      allowPrivateNetwork: true,
    }).then((connection) => connection.close());
    expect(await fetchErrorCode(connecting)).toBe('MCP_CONNECT_FAILED');
    await vi.waitFor(() => expect(openStreams).toBe(0), { timeout: 30_000 });
  });
});
