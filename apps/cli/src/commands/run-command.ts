import type { AgentqClient } from '@agentq/client';
import { AgentqError, type RunResult, type RunSpecInput } from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { demoRunSpec } from '../dev/demo-run-spec.js';
import { pickDefaultModel } from '../dev/pick-default-model.js';
import { EXIT_CODES } from '../exit-codes.js';
import { cliInvocation } from '../output/cli-invocation.js';
import { createProgressPrinter } from '../output/progress-printer.js';
import { withClient } from '../with-client.js';

/** Options of `agentq run`. */
export interface RunCommandOptions {
  model?: string;
  server?: string[];
  demo?: boolean;
  wait?: boolean;
  /** Milliseconds; parsed and bounded by the option's parser. */
  timeout: number;
  runId?: string;
  system?: string;
  /** Parsed and bounded by the option's parser. */
  maxSteps?: number;
  json?: boolean;
}

/** Builds the run spec of `agentq run` from its prompt and options. */
export function runSpecFromOptions(
  prompt: string | undefined,
  options: RunCommandOptions,
  env: Record<string, string | undefined>,
): RunSpecInput {
  const model = options.model ?? pickDefaultModel(env);
  if (options.demo) {
    const spec = demoRunSpec(model);
    return prompt ? { ...spec, input: { prompt } } : spec;
  }
  if (!prompt) {
    throw new AgentqError({ code: 'USAGE', field: 'prompt', message: 'Give a prompt, or --demo for the demo run' });
  }
  // The demo model only knows the demo script: give it the demo's server unless told otherwise.
  const servers = options.server ?? (model === 'scripted:demo' ? ['everything'] : []);
  return {
    assistant: {
      model,
      mcpServers: servers,
      ...(options.system ? { system: options.system } : {}),
      ...(options.maxSteps === undefined ? {} : { maxSteps: options.maxSteps }),
      ...(model === 'scripted:demo' ? { contextWindow: 8_000 } : {}),
    },
    input: { prompt },
  };
}

/** `agentq run`: enqueue a run and, with `--wait`, follow it to its result. */
export async function runCommand(io: CliIo, prompt: string | undefined, options: RunCommandOptions): Promise<number> {
  const spec = runSpecFromOptions(prompt, options, io.env);
  return await withClient(io, async (client) => {
    const { runId, created } = await client.enqueueRun(spec, { runId: options.runId });
    if (!options.json)
      io.out(`${created ? 'Enqueued' : 'Already enqueued'} run ${runId} (model ${spec.assistant.model})`);
    if (!options.wait) {
      if (options.json) io.out(JSON.stringify({ runId, created }));
      else io.out(`Follow it with: ${cliInvocation(io.env)} status ${runId}`);
      return EXIT_CODES.ok;
    }
    const result = await followRun({
      io,
      client,
      runId,
      timeoutMs: options.timeout,
      json: options.json ?? false,
    });
    if (options.json) io.out(JSON.stringify(result, null, 2));
    else
      io.out(
        `\n${result.text}\n\n(${result.steps.length} steps, ${result.toolCalls.length} tool calls, ${result.usage.totalTokens} tokens)`,
      );
    return EXIT_CODES.ok;
  });
}

/**
 * Prints progress as a run moves, until it finishes: each step once, its tool calls under it, and
 * the calls a meta tool made nested under that call (read from the run's timeline).
 */
async function followRun(options: {
  io: CliIo;
  client: AgentqClient;
  runId: string;
  timeoutMs: number;
  json: boolean;
}): Promise<RunResult> {
  const printer = createProgressPrinter({ out: (line) => options.io.out(line), agentq: cliInvocation(options.io.env) });
  // Updates render one after another, each from a fresh timeline read.
  let rendering: Promise<void> = Promise.resolve();
  const render = () => {
    if (options.json) return;
    rendering = rendering.then(async () => {
      try {
        printer.show(await options.client.getRunTimeline(options.runId));
      } catch {
        // the display is best effort; waiting goes on
      }
    });
  };
  try {
    return await options.client.waitForRun(options.runId, {
      timeoutMs: options.timeoutMs,
      pollIntervalMs: 200,
      onUpdate: render,
    });
  } finally {
    // The last steps land as the run finishes: show them before the result.
    render();
    await rendering;
  }
}

/** `agentq status <runId>`: one look at a run. */
export async function statusCommand(io: CliIo, runId: string, options: { json?: boolean }): Promise<number> {
  return await withClient(io, async (client) => {
    const run = await client.getRun(runId);
    if (options.json) {
      io.out(JSON.stringify(run, null, 2));
      return EXIT_CODES.ok;
    }
    io.out(`run ${run.runId}: ${run.state}`);
    if (run.progress.step !== undefined)
      io.out(`  step ${run.progress.step}${run.progress.lastTool ? ` · last tool ${run.progress.lastTool}` : ''}`);
    for (const approval of run.pendingApprovals)
      io.out(`  waiting for approval ${approval.approvalId} (${approval.toolName})`);
    if (run.result) io.out(`\n${run.result.text}`);
    if (run.error) io.out(`  error: ${run.error.message}`);
    return run.state === 'failed' ? EXIT_CODES.failed : EXIT_CODES.ok;
  });
}
