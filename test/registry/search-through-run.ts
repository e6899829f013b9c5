// Runs one `tool_search` through a real worker with a scripted model, and returns what the model
// was given: how the search suites observe the ranking a run sees.
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { expect } from 'vitest';
import { enqueueRun, waitForJob } from '../worker/helpers/worker-harness.js';

/** Names of the results of `query` in a run offering the tools of `server`, best first. */
export async function searchThroughRun(
  queue: Queue,
  options: { runId: string; server: string; query: string; limit?: number },
): Promise<string[]> {
  await enqueueRun(queue, {
    runId: options.runId,
    spec: {
      assistant: {
        model: 'scripted:test',
        mcpServers: [options.server],
        contextWindow: 2_000,
        script: [
          { toolCalls: [{ toolName: 'tool_search', input: { query: options.query, limit: options.limit ?? 3 } }] },
          { text: 'done' },
        ],
      },
      input: { prompt: 'find it' },
    },
  });
  const finished = await waitForJob(queue, options.runId);
  expect(finished.failedReason).toBeUndefined();
  const result = runResultSchema.parse(finished.returnvalue);
  const output = result.toolCalls[0]?.output as { results: Array<{ name: string }> };
  return output.results.map((one) => one.name);
}
