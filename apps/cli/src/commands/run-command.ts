import { runDurationMs, type AgentqClient, type RunInfo } from '@agentq/client';
import {
  AgentqError,
  apiBaseUrlOf,
  readRunSpecFile,
  type Config,
  type RunResult,
  type RunSpecInput,
} from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { argumentsPreview } from './approvals-command.js';
import { demoRunSpec } from '../dev/demo-run-spec.js';
import { pickDefaultModel } from '../dev/pick-default-model.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatAge } from '../output/format-table.js';
import { createProgressPrinter } from '../output/progress-printer.js';
import { suggestedAgentq } from '../output/shell-env-prefix.js';
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
  /** A run spec file (JSON or YAML), used as it is instead of the prompt and the spec options. */
  spec?: string;
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

/** Options that build a spec, which a `--spec` file replaces whole. */
const specBuildingOptions = ['model', 'server', 'demo', 'system', 'maxSteps'] as const;

/**
 * The run spec of `agentq run --spec <file>`: the file's document, validated with the client's run
 * spec schema when it is enqueued (a `VALIDATION` error names each bad field). Neither a prompt nor
 * an option that builds a spec may come with it: which one would win is not obvious.
 */
async function specFromFile(prompt: string | undefined, options: RunCommandOptions): Promise<RunSpecInput> {
  const clash = prompt !== undefined ? 'prompt' : specBuildingOptions.find((name) => options[name] !== undefined);
  if (clash !== undefined) {
    throw new AgentqError({
      code: 'USAGE',
      field: clash,
      message: `--spec gives the whole run spec: drop the ${clash === 'prompt' ? 'prompt' : `--${clash.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} option`}`,
    });
  }
  return (await readRunSpecFile(options.spec as string)) as RunSpecInput;
}

/** The run's page in the admin UI, at the API the configuration names (`AGENTQ_API_URL`). */
export function runPageUrl(config: Pick<Config, 'apiUrl' | 'apiHost' | 'apiPort'>, runId: string): string {
  return `${apiBaseUrlOf(config)}/admin/runs/${encodeURIComponent(runId)}`;
}

/** `agentq run`: enqueue a run and, with `--wait`, follow it to its result. */
export async function runCommand(io: CliIo, prompt: string | undefined, options: RunCommandOptions): Promise<number> {
  const spec =
    options.spec === undefined ? runSpecFromOptions(prompt, options, io.env) : await specFromFile(prompt, options);
  return await withClient(io, async (client, config) => {
    const { runId, created } = await client.enqueueRun(spec, { runId: options.runId });
    const page = runPageUrl(config, runId);
    // Suggested commands carry the Redis and prefix this run went to, and the API its page is on.
    const agentq = suggestedAgentq(config, io.env);
    if (!options.json) {
      io.out(`${created ? 'Enqueued' : 'Already enqueued'} run ${runId} (model ${spec.assistant.model})`);
      io.out(`Page: ${page}`);
    }
    if (!options.wait) {
      if (options.json) io.out(JSON.stringify({ runId, created, page }));
      else io.out(`Follow it with: ${agentq} status ${runId}`);
      return EXIT_CODES.ok;
    }
    let result: RunResult;
    try {
      result = await followRun({
        io,
        client,
        runId,
        agentq,
        timeoutMs: options.timeout,
        json: options.json ?? false,
      });
    } catch (error) {
      // A script reading --json gets the run as `agentq status --json` shows it, whatever the
      // outcome; the error line and the exit code still follow.
      if (options.json && AgentqError.isInstance(error) && (error.code === 'RUN_FAILED' || error.code === 'TIMEOUT')) {
        const run = await client.getRun(runId).catch(() => undefined);
        if (run) io.out(JSON.stringify(run, null, 2));
      }
      throw error;
    }
    if (options.json) io.out(JSON.stringify(result, null, 2));
    else
      io.out(
        `\n${result.text}\n\n(${plural(result.steps.length, 'step')}, ${plural(result.toolCalls.length, 'tool call')}, ${plural(result.usage.totalTokens, 'token')})`,
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
  /** How to run `agentq` against this run's Redis, for the approve and deny hints. */
  agentq: string;
  timeoutMs: number;
  json: boolean;
}): Promise<RunResult> {
  const printer = createProgressPrinter({ out: (line) => options.io.out(line), agentq: options.agentq });
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
  let seen = false;
  try {
    return await options.client.waitForRun(options.runId, {
      timeoutMs: options.timeoutMs,
      pollIntervalMs: 200,
      onUpdate: () => {
        seen = true;
        render();
      },
    });
  } catch (error) {
    // It was there a moment ago, in this Redis: it was cancelled or removed, not looked for in
    // the wrong place.
    if (seen && AgentqError.isInstance(error) && error.code === 'NOT_FOUND') {
      throw new AgentqError({
        code: 'NOT_FOUND',
        message: `Run ${options.runId} was cancelled or removed while waiting for it`,
        cause: error,
      });
    }
    throw error;
  } finally {
    // The last steps land as the run finishes: show them before the result.
    render();
    await rendering;
  }
}

/** `agentq status <runId>`: one look at a run. */
export async function statusCommand(io: CliIo, runId: string, options: { json?: boolean }): Promise<number> {
  return await withClient(io, async (client, config) => {
    const run = await client.getRun(runId);
    if (options.json) io.out(JSON.stringify(run, null, 2));
    else
      for (const line of describeRun(run, runPageUrl(config, run.runId), suggestedAgentq(config, io.env))) io.out(line);
    // The same exit code with or without --json.
    return run.state === 'failed' ? EXIT_CODES.failed : EXIT_CODES.ok;
  });
}

/**
 * The lines of `agentq status`. A worker reports progress after each step but the last (the job's
 * completion says that one), and `progress.step` counts the steps finished: a finished run is
 * described from its result, a running one as "N steps done".
 */
export function describeRun(run: RunInfo, page: string, agentq = 'agentq'): string[] {
  const lines = [`run ${run.runId}: ${run.state}`];
  const took = formatAge(runDurationMs(run));
  if (run.result) {
    const { steps, toolCalls, usage } = run.result;
    lines.push(
      `  ${plural(steps.length, 'step')} · ${plural(toolCalls.length, 'tool call')} · ${usage.totalTokens} tokens · took ${took}`,
    );
  } else if (run.state !== 'failed') {
    const done = run.progress.step ?? 0;
    const lastTool = run.progress.lastTool ? ` · last tool ${run.progress.lastTool}` : '';
    lines.push(`  ${plural(done, 'step')} done${lastTool} · ${took} so far`);
  } else {
    lines.push(`  failed after ${took}`);
  }
  lines.push(`  page: ${page}`);
  lines.push(...describeCatalogVersions(run.steps));
  for (const approval of run.pendingApprovals) {
    const call = `${approval.approvalId} (${approval.serverId === undefined ? '' : `${approval.serverId}, `}${approval.toolName})`;
    // Decided, but the run has not picked the decision up yet.
    const { decision } = approval;
    lines.push(
      decision
        ? `  approval ${call} ${decision.approved ? 'approved' : 'denied'} by ${decision.decidedBy}; the run resumes on a worker`
        : `  waiting for approval ${call}`,
    );
    // What is decided on is the arguments: show them, and where to read them whole when cut.
    if (approval.input !== undefined) {
      const preview = argumentsPreview(approval.input);
      lines.push(`    arguments: ${preview.text}`);
      if (preview.cut) lines.push(`    whole: ${agentq} approvals show ${approval.approvalId}`);
    }
  }
  for (const question of run.pendingElicitations) {
    lines.push(`  waiting for an answer to ${question.elicitationId} (${question.serverId}, ${question.toolName})`);
    lines.push(`    ${question.message}`);
    lines.push(`    answer: ${agentq} elicitations answer ${question.elicitationId}`);
  }
  if (run.result) lines.push('', run.result.text);
  if (run.error) lines.push(`  error: ${run.error.message}`);
  return lines;
}

/**
 * The catalog versions the run's steps were shown, one line per run of steps that saw the same
 * versions: `steps 1-4: svc@<version>` (each readable with `agentq catalog svc --version`).
 */
export function describeCatalogVersions(steps: RunInfo['steps']): string[] {
  const groups: Array<{ first: number; last: number; versions: string }> = [];
  for (const step of steps) {
    const entries = Object.entries(step.catalogVersion ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const versions = entries.map(([serverId, version]) => `${serverId}@${version}`).join(' ') || 'no MCP servers';
    const last = groups.at(-1);
    if (last && last.versions === versions) last.last = step.step;
    else groups.push({ first: step.step, last: step.step, versions });
  }
  if (groups.length === 0) return [];
  return [
    '  catalog versions:',
    ...groups.map(({ first, last, versions }) =>
      // Numbered from 1, as `agentq run --wait` shows the steps.
      first === last ? `    step ${first + 1}: ${versions}` : `    steps ${first + 1}-${last + 1}: ${versions}`,
    ),
  ];
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
