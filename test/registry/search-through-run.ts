// Runs one `tool_search` through a real worker with a scripted model, and returns what the model
// was given: how the search suites observe the ranking a run sees.
import { runResultSchema } from '@agentq/shared';
import type { Queue } from 'bullmq';
import { expect } from 'vitest';
import { enqueueRun, waitForJob } from '../worker/helpers/worker-harness.js';

/** What one search run saw: its result names, best first, and the catalog version of each server. */
export interface SearchRun {
  names: string[];
  catalogVersion: Record<string, string>;
}

/** Names of the results of `query` in a run offering the tools of `server`, best first. */
export async function searchThroughRun(
  queue: Queue,
  options: { runId: string; server: string; query: string; limit?: number },
): Promise<string[]> {
  return (await searchRun(queue, options)).names;
}

/** Runs `query` like {@link searchThroughRun}, and also returns the catalog versions the run was built from. */
export async function searchRun(
  queue: Queue,
  options: { runId: string; server: string; query: string; limit?: number },
): Promise<SearchRun> {
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
  return { names: output.results.map((one) => one.name), catalogVersion: result.catalogVersion };
}
