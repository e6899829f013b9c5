import { AgentqError } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { createEmbedder } from './create-embedder.js';
import { createQueryEmbedder } from '@agentq/registry';

const none = {
  embeddingModel: undefined,
  embeddingBaseUrl: undefined,
  openaiApiKey: undefined,
  openaiCompatibleBaseUrl: undefined,
  openaiCompatibleApiKey: undefined,
};

describe('createEmbedder', () => {
  it('is null without a model: search stays lexical', () => {
    expect(createEmbedder(none)).toBeNull();
  });

  it('refuses a configured model it cannot reach, with a code', () => {
    for (const embeddingModel of ['openai:text-embedding-3-small', 'openai-compatible:nomic-embed-text']) {
      let caught: unknown;
      try {
        createEmbedder({ ...none, embeddingModel });
      } catch (error) {
        caught = error;
      }
      expect(AgentqError.isInstance(caught) && caught.code).toBe('EMBEDDING_CONFIG_INVALID');
    }
  });

  it('sends texts to the configured OpenAI-compatible endpoint and returns one vector per text', async () => {
    const requests: Array<{ url: string; body: { model: string; input: string[] } }> = [];
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const body = JSON.parse(String(init?.body)) as { model: string; input: string[] };
      requests.push({ url: String(input), body });
      const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, 1] }));
      return new Response(JSON.stringify({ object: 'list', data, model: body.model }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const embedder = createEmbedder(
      { ...none, embeddingModel: 'openai-compatible:tiny', embeddingBaseUrl: 'http://127.0.0.1:9/v1' },
      { fetch },
    );
    expect(embedder?.modelId).toBe('openai-compatible:tiny');
    expect(await embedder?.embed(['ab', 'abcd'])).toEqual([
      [2, 1],
      [4, 1],
    ]);
    expect(requests[0]?.url).toBe('http://127.0.0.1:9/v1/embeddings');
    expect(requests[0]?.body.model).toBe('tiny');

    // The query embedder asks once per distinct query.
    const embedQuery = createQueryEmbedder(embedder!);
    await embedQuery('same', undefined);
    await embedQuery('same', undefined);
    expect(requests).toHaveLength(2);
  });

  it('fails an answer over AGENTQ_EMBEDDING_MAX_BYTES with a code, reading no further', async () => {
    let pulled = 0;
    const endless = (): ReadableStream<Uint8Array> =>
      new ReadableStream({
        pull(controller) {
          pulled += 1;
          controller.enqueue(new Uint8Array(4096).fill(0x20));
        },
      });
    const fetch: typeof globalThis.fetch = async () =>
      new Response(endless(), { headers: { 'content-type': 'application/json' } });
    const embedder = createEmbedder(
      {
        ...none,
        embeddingModel: 'openai-compatible:tiny',
        embeddingBaseUrl: 'http://127.0.0.1:9/v1',
        embeddingMaxBytes: 65_536,
      },
      { fetch, maxRetries: 0 },
    );
    let caught: unknown;
    try {
      await embedder?.embed(['ab']);
    } catch (error) {
      caught = error;
    }
    expect(AgentqError.isInstance(caught) && caught.code).toBe('EMBEDDING_TOO_LARGE');
    expect(pulled).toBeLessThan(64);
  });
});
