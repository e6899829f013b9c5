import { createServer, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AgentWorker } from '@agentq/agent-worker';
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureStdioTransport } from '../fixtures/mcp/spawn-fixture.js';
import { createTestContext, type TestContext } from '../helpers/test-context.js';
import { warmServer } from './helpers/catalog.js';
import { enqueueRun, runsQueue, startTestWorker, waitForJob, stopWorkerSuite } from './helpers/worker-harness.js';

/** Answers of a fake OpenAI-compatible server, one per request; `503` fails that request. */
type Answer = { toolCall: { name: string; arguments: unknown } } | { text: string } | 503;

function completion(answer: Exclude<Answer, 503>) {
  const message =
    'text' in answer
      ? { role: 'assistant', content: answer.text }
      : {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_outage_1',
              type: 'function',
              function: { name: answer.toolCall.name, arguments: JSON.stringify(answer.toolCall.arguments) },
            },
          ],
        };
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'fake',
    choices: [{ index: 0, message, finish_reason: 'text' in answer ? 'stop' : 'tool_calls' }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

describe('a model provider outage', () => {
  let ctx: TestContext;
  let worker: AgentWorker;
  let queue: Queue;
  let server: Server;
  let folder: string;
  let counterFile: string;
  const requests: string[] = [];
  const answers: Answer[] = [
    { toolCall: { name: 'mcp__fx__counterIncrement', arguments: { note: 'outage' } } },
    503,
    503,
    { text: 'recovered' },
  ];

  beforeAll(async () => {
    ctx = createTestContext();
    folder = await mkdtemp(join(tmpdir(), 'agentq-outage-'));
    counterFile = join(folder, 'counter.log');
    await warmServer({
      redis: ctx.redis,
      prefix: ctx.prefix,
      definition: { id: 'fx', transport: fixtureStdioTransport({ counterFile }) },
    });
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        requests.push(body);
        const answer = answers[requests.length - 1] ?? { text: 'extra request' };
        if (answer === 503) {
          response.writeHead(503, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(completion(answer)));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    worker = await startTestWorker({
      redisUrl: ctx.redisUrl,
      prefix: ctx.prefix,
      env: { OPENAI_COMPATIBLE_BASE_URL: `http://127.0.0.1:${port}/v1` },
    });
    queue = runsQueue(ctx);
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await stopWorkerSuite({ worker, queue, ctx });
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  it('retries the job with backoff and resumes from the checkpoint, without redoing the finished step', async () => {
    await enqueueRun(queue, {
      runId: 'outage-1',
      spec: { assistant: { model: 'openai-compatible:fake', mcpServers: ['fx'] }, input: { prompt: 'count once' } },
      attempts: 3,
    });
    const finished = await waitForJob(queue, 'outage-1', 60_000);
    expect(finished.state).toBe('completed');
    const result = runResultSchema.parse(finished.returnvalue);
    expect(result.text).toBe('recovered');
    // One answered request for step one, two failed ones (the SDK's try and retry), then the
    // retried job asked only for step two: it did not start over.
    expect(requests).toHaveLength(4);
    expect(requests[3]).toContain('call_outage_1');
    const notes = (await readFile(counterFile, 'utf8')).split('\n').filter((line) => line.endsWith(' outage'));
    expect(notes).toHaveLength(1);
  });
});
