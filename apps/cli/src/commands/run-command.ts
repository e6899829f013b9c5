import type { AgentqClient, RunInfo } from '@agentq/client';
import { AgentqError, type RunResult, type RunSpecInput } from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { demoRunSpec } from '../dev/demo-run-spec.js';
import { pickDefaultModel } from '../dev/pick-default-model.js';
import { EXIT_CODES } from '../exit-codes.js';
import { withClient } from '../with-client.js';

/** Options of `agentq run`. */
export interface RunCommandOptions {
  model?: string;
  server?: string[];
  demo?: boolean;
  wait?: boolean;
  timeout: string;
  runId?: string;
  system?: string;
  maxSteps?: string;
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
      ...(options.maxSteps ? { maxSteps: Number(options.maxSteps) } : {}),
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
      else io.out(`Follow it with: agentq status ${runId}`);
      return EXIT_CODES.ok;
    }
    const result = await followRun({
      io,
      client,
      runId,
      timeoutMs: Number(options.timeout),
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

/** Prints progress lines as a run moves, until it finishes. */
async function followRun(options: {
  io: CliIo;
  client: AgentqClient;
  runId: string;
  timeoutMs: number;
  json: boolean;
}): Promise<RunResult> {
  const announced = new Set<string>();
  let lastLine = '';
  const say = (line: string) => {
    if (options.json || line === lastLine) return;
    lastLine = line;
    options.io.out(line);
  };
  return await options.client.waitForRun(options.runId, {
    timeoutMs: options.timeoutMs,
    pollIntervalMs: 200,
    onUpdate: (run: RunInfo) => {
      if (run.state === 'waiting') say('  queued');
      if (run.state === 'delayed') say(`  retrying after a failure (attempt ${run.attemptsMade + 1})`);
      if (run.state === 'active') {
        const step = run.progress.step === undefined ? '' : `step ${run.progress.step}`;
        const tool = run.progress.lastTool ? ` · tool ${run.progress.lastTool}` : '';
        say(`  running${step ? ` · ${step}` : ''}${tool}`);
      }
      if (run.state === 'waiting-approval') {
        say('  waiting for approval');
        for (const approval of run.pendingApprovals) {
          if (announced.has(approval.approvalId) || options.json) continue;
          announced.add(approval.approvalId);
          const input = approval.input === undefined ? '' : ` ${truncate(JSON.stringify(approval.input), 120)}`;
          options.io.out(`    ${approval.toolName}${input}`);
          options.io.out(`    approve: agentq approvals approve ${approval.approvalId}`);
          options.io.out(`    deny:    agentq approvals deny ${approval.approvalId} --reason "..."`);
        }
      }
      if (run.state === 'completed') say('  completed');
      if (run.state === 'failed') say('  failed');
    },
  });
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

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
