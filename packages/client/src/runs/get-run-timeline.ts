import {
  isOfRunIncarnation,
  type RecordedToolResult,
  type RunWarning,
  type StepRecord,
  type ToolCallRecord,
  type Usage,
} from '@agentq/shared';
import { readApprovalRecords, type ApprovalRecord } from '@agentq/store';
import type { ClientContext } from '../client-context.js';
import { findRun } from './find-run.js';
import { readRun, type RunInfo } from './get-run.js';
import { runTimingOf, type RunTiming } from './run-timing.js';

/**
 * What became of one tool call:
 * - `ok` / `error`: it ran, and returned a result or failed (a tool error goes back to the model);
 * - `refused`: a meta tool refused it (not inspected yet, unknown name, gated, bad parameters);
 * - `denied`: its approval was denied, expired or failed the resume checks;
 * - `awaiting-approval`: its approval is not decided yet;
 * - `running`: it started in the step now running and has no result yet;
 * - `interrupted`: the attempt running it stopped before it recorded a result.
 */
export type RunCallStatus = 'ok' | 'error' | 'refused' | 'denied' | 'awaiting-approval' | 'running' | 'interrupted';

/** One tool call on a run's timeline. */
export interface RunTimelineCall {
  toolCallId: string;
  /** The wire name the model called. */
  toolName: string;
  input: unknown;
  /** The result as the model saw it (absent while running, interrupted or awaiting approval). */
  output?: unknown;
  status: RunCallStatus;
  /** When it started, in epoch ms, if the journal recorded it. */
  startedAt?: number;
  /** How long it ran, if the journal recorded its start and end. */
  durationMs?: number;
  /** The approval record of a gated call: the request, and once decided who, when and how. */
  approval?: ApprovalRecord;
  /** Calls a meta tool (`tool_invoke`) made on the model's behalf, in the order they started. */
  inner: RunTimelineCall[];
}

/** One model step: its text and its tool calls. */
export interface RunTimelineStep {
  step: number;
  text: string;
  finishReason: string;
  usage: Usage;
  calls: RunTimelineCall[];
  /**
   * `serverId → catalog version` of the tools the model was shown at this step (absent on steps
   * recorded before runs were pinned); `agentq catalog <server> --version <v>` shows each.
   */
  catalogVersion?: Record<string, string>;
}

/** A run as its page shows it: state and header, then every step with its calls. */
export interface RunTimeline {
  run: RunInfo;
  steps: RunTimelineStep[];
  /** Calls of the step now running, known from the tool-result journal before the step ends. */
  inProgress: RunTimelineCall[];
  usage: Usage;
  /** Catalog versions (`serverId → version`) the run's tools came from. */
  catalogVersion: Record<string, string>;
  warnings: RunWarning[];
  /** The run's shard (`r3`), for its queue's name on Bull Board; absent with a single run shard. */
  shard?: string;
  /**
   * How long the run has taken since it was enqueued, and how much of it waiting for approvals.
   * Always set by `getRunTimeline`.
   */
  timing?: RunTiming;
}

/** The separator of a nested call id: the outer id, `::`, the inner tool's name. */
const NESTED = '::';

/**
 * The inner tool of `id` when it is a call that `outerId` made: `<outer>::<tool>` (`tool_invoke`),
 * or `<outer>#<n>::<tool>`, the n-th call of a `tool_exec` script. Undefined otherwise.
 */
function nestedCallOf(outerId: string, id: string): { toolName: string; order: number } | undefined {
  if (!id.startsWith(outerId)) return undefined;
  const rest = id.slice(outerId.length);
  if (rest.startsWith(NESTED)) return { toolName: rest.slice(NESTED.length), order: 0 };
  const match = /^#(\d{1,6})::(.+)$/.exec(rest);
  return match ? { toolName: match[2]!, order: Number(match[1]) } : undefined;
}

const zeroUsage: Usage = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };

/**
 * Reads a run's timeline from what the workers wrote: the checkpoint (steps, tool calls, usage,
 * catalog versions), the tool-result journal (timings, calls still running, calls a meta tool made)
 * and the approval records (who decided, when, through which path). Falls back to the job's
 * result when the checkpoint is gone. `NOT_FOUND` for an unknown run.
 */
export async function getRunTimeline(context: ClientContext, runId: string): Promise<RunTimeline> {
  const { run, incarnation } = await readRun(context, runId);
  // The run's state lives under its shard's keys (the deployment prefix with one shard).
  const shard = (await findRun(context, runId))?.shard ?? context.shards.forRun(runId);
  const runs = context.runStoreOf(shard);
  // A checkpoint or journal entry of another incarnation is an earlier run's under the same id.
  const [stored, journal] = await Promise.all([runs.read(runId), runs.recordedToolResults(runId, incarnation)]);
  const checkpoint = stored !== null && isOfRunIncarnation(stored, incarnation) ? stored : undefined;
  const source = checkpoint ?? run.result;
  const steps: StepRecord[] = source?.steps ?? [];
  const toolCalls: ToolCallRecord[] = source?.toolCalls ?? [];

  const approvalIds = new Set<string>();
  for (const call of toolCalls) if (call.approval) approvalIds.add(call.approval.approvalId);
  for (const pending of checkpoint?.pendingApprovals ?? []) approvalIds.add(pending.approvalId);
  const records = await readApprovalRecords({
    redis: context.redis,
    prefix: shard.prefix,
    approvalIds: [...approvalIds],
  });
  const approvalByCall = new Map(records.map((record) => [record.request.toolCallId, record]));

  const running = run.state === 'active';
  const timelineCall = (call: { toolCallId: string; toolName: string; input: unknown }): RunTimelineCall => {
    const recorded = journal.get(call.toolCallId);
    const out: RunTimelineCall = {
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      input: call.input,
      status: 'ok',
      inner: innerCalls(call.toolCallId),
      ...timingOf(recorded),
    };
    const approval = approvalByCall.get(call.toolCallId);
    if (approval) out.approval = approval;
    return out;
  };
  const innerCalls = (outerId: string): RunTimelineCall[] =>
    [...journal.entries()]
      .flatMap(([id, recorded]) => {
        const nested = nestedCallOf(outerId, id);
        return nested ? [{ id, recorded, ...nested }] : [];
      })
      // A script's calls ran one at a time: their number is their order, even within one millisecond.
      .sort((a, b) => (a.recorded.startedAt ?? 0) - (b.recorded.startedAt ?? 0) || a.order - b.order)
      .map(({ id, recorded, toolName }) => {
        const inner = timelineCall({ toolCallId: id, toolName, input: undefined });
        inner.status = statusOfJournal(recorded, running);
        if ('ok' in recorded) inner.output = recorded.ok ? recorded.output : recorded.error;
        return inner;
      });

  const timelineSteps: RunTimelineStep[] = steps.map((step) => ({
    step: step.step,
    text: step.text,
    finishReason: step.finishReason,
    usage: step.usage,
    calls: [],
    ...(step.catalogVersion ? { catalogVersion: step.catalogVersion } : {}),
  }));
  const stepAt = (index: number): RunTimelineStep => {
    let found = timelineSteps.find((step) => step.step === index);
    if (!found) {
      found = { step: index, text: '', finishReason: 'unknown', usage: zeroUsage, calls: [] };
      timelineSteps.push(found);
    }
    return found;
  };
  const onTimeline = new Set<string>();
  for (const call of toolCalls) {
    onTimeline.add(call.toolCallId);
    const entry = timelineCall(call);
    if ('output' in call && call.output !== undefined) entry.output = call.output;
    entry.status = statusOfRecord({ call, entry, journal: journal.get(call.toolCallId), running });
    // A meta tool's input names the tool it ran: show that call nested even without a journal entry.
    if (call.toolName === 'tool_invoke' && entry.inner.length === 0) {
      const input = call.input as { name?: unknown; params?: unknown } | undefined;
      if (typeof input?.name === 'string' && entry.status !== 'refused') {
        entry.inner.push({
          toolCallId: `${call.toolCallId}${NESTED}${input.name}`,
          toolName: input.name,
          input: input.params,
          output: entry.output,
          status: entry.status,
          inner: [],
        });
      }
    }
    for (const inner of entry.inner)
      if (inner.input === undefined) inner.input = (call.input as { params?: unknown })?.params;
    stepAt(call.step).calls.push(entry);
  }
  timelineSteps.sort((a, b) => a.step - b.step);

  // Calls the current step started that no checkpoint holds yet.
  const inProgress: RunTimelineCall[] = [];
  for (const [toolCallId, recorded] of journal) {
    if (toolCallId.includes(NESTED) || onTimeline.has(toolCallId)) continue;
    // Entries written before tool names were recorded have none.
    const call = timelineCall({ toolCallId, toolName: recorded.toolName ?? 'unknown', input: undefined });
    call.status = statusOfJournal(recorded, running);
    if ('ok' in recorded) call.output = recorded.ok ? recorded.output : recorded.error;
    inProgress.push(call);
  }
  inProgress.sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0));

  return {
    run,
    steps: timelineSteps,
    inProgress,
    usage: source?.usage ?? zeroUsage,
    catalogVersion: source?.catalogVersion ?? {},
    warnings: source?.warnings ?? [],
    ...(shard.index === undefined ? {} : { shard: shard.label }),
    timing: runTimingOf({ enqueuedAt: run.createdAt, finishedAt: run.finishedAt, approvals: records, now: Date.now() }),
  };
}

function timingOf(recorded: RecordedToolResult | undefined): { startedAt?: number; durationMs?: number } {
  if (!recorded || recorded.startedAt === undefined) return {};
  const finishedAt = 'finishedAt' in recorded ? recorded.finishedAt : undefined;
  return finishedAt === undefined
    ? { startedAt: recorded.startedAt }
    : { startedAt: recorded.startedAt, durationMs: Math.max(0, finishedAt - recorded.startedAt) };
}

function statusOfJournal(recorded: RecordedToolResult, running: boolean): RunCallStatus {
  if ('claimedBy' in recorded) return running ? 'running' : 'interrupted';
  return recorded.ok ? 'ok' : 'error';
}

function statusOfRecord(options: {
  call: ToolCallRecord;
  entry: RunTimelineCall;
  journal: RecordedToolResult | undefined;
  running: boolean;
}): RunCallStatus {
  const { call, entry } = options;
  const output = call.output as { denied?: unknown; refused?: unknown } | undefined;
  if (call.approval && !call.approval.approved) return 'denied';
  if (output && typeof output === 'object' && output.denied === true) return 'denied';
  if (output && typeof output === 'object' && output.refused === true) return 'refused';
  if (entry.approval && !entry.approval.decision && call.output === undefined) return 'awaiting-approval';
  if (entry.approval?.decision && !entry.approval.decision.approved) return 'denied';
  if (call.output === undefined) {
    if (options.journal && 'claimedBy' in options.journal) return options.running ? 'running' : 'interrupted';
    if (entry.approval) return 'awaiting-approval';
    return options.running ? 'running' : 'interrupted';
  }
  return call.isError ? 'error' : 'ok';
}
