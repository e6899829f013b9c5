import type { RunTimeline, RunTimelineCall } from '@agentq/client';
import { toolSearchCallSummary } from '@agentq/shared';

/** Options of {@link createProgressPrinter}. */
export interface ProgressPrinterOptions {
  /** Writes one line. */
  out: (line: string) => void;
  /** How to run `agentq` here, for the approve and deny hints (see `cliInvocation`). */
  agentq: string;
}

const statusNotes: Partial<Record<RunTimelineCall['status'], string>> = {
  error: 'tool error',
  refused: 'refused',
  denied: 'denied',
  'awaiting-approval': 'awaiting approval',
  interrupted: 'interrupted',
};

/**
 * The live display of `agentq run --wait`: each step once, as it is first seen, each tool call
 * once under its step, and the calls a meta tool (`tool_invoke`) made nested under it. Fed with
 * successive timelines of the same run; prints only what is new.
 */
export function createProgressPrinter(options: ProgressPrinterOptions) {
  const { out } = options;
  const printedSteps = new Set<number>();
  const printedCalls = new Set<string>();
  const announcedApprovals = new Set<string>();
  const announcedQuestions = new Set<string>();
  let lastState = '';

  const step = (index: number, text?: string) => {
    if (printedSteps.has(index)) return;
    printedSteps.add(index);
    const firstLine = text?.trim().split('\n')[0];
    out(`  step ${index + 1}${firstLine ? `: ${truncate(firstLine, 100)}` : ''}`);
  };
  const call = (entry: RunTimelineCall, depth: number) => {
    const indent = '  '.repeat(depth + 2);
    if (!printedCalls.has(entry.toolCallId)) {
      printedCalls.add(entry.toolCallId);
      const note = statusNotes[entry.status];
      const duration = entry.durationMs === undefined ? '' : ` (${entry.durationMs} ms)`;
      out(`${indent}${entry.toolName}${searchNote(entry)}${duration}${note ? ` · ${note}` : ''}`);
    }
    for (const inner of entry.inner) call(inner, depth + 1);
  };

  return {
    /** Prints what `timeline` adds to what was printed before. */
    show(timeline: RunTimeline): void {
      const { run } = timeline;
      for (const entry of timeline.steps) {
        step(entry.step, entry.text);
        for (const stepCall of entry.calls) call(stepCall, 0);
      }
      if (timeline.inProgress.length > 0) {
        step(timeline.steps.length);
        for (const running of timeline.inProgress) call(running, 0);
      }
      if (run.state !== lastState) {
        lastState = run.state;
        if (run.state === 'waiting') out('  queued');
        if (run.state === 'delayed') out(`  retrying after a failure (attempt ${run.attemptsMade + 1})`);
        if (run.state === 'waiting-approval') out('  waiting for approval');
        if (run.state === 'waiting-input') out('  waiting for an answer to a question from an MCP server');
        if (run.state === 'completed') out('  completed');
        if (run.state === 'failed') out('  failed');
      }
      for (const approval of run.pendingApprovals) {
        if (announcedApprovals.has(approval.approvalId)) continue;
        announcedApprovals.add(approval.approvalId);
        const input = approval.input === undefined ? '' : ` ${truncate(JSON.stringify(approval.input), 120)}`;
        const server = approval.serverId === undefined ? '' : ` (server ${approval.serverId})`;
        out(`    ${approval.toolName}${server}${input}`);
        out(`    approve: ${options.agentq} approvals approve ${approval.approvalId}`);
        out(`    deny:    ${options.agentq} approvals deny ${approval.approvalId} --reason "..."`);
      }
      for (const question of run.pendingElicitations) {
        if (announcedQuestions.has(question.elicitationId)) continue;
        announcedQuestions.add(question.elicitationId);
        out(`    ${question.serverId} asks (${question.toolName}): ${truncate(question.message, 200)}`);
        out(`    answer: ${options.agentq} elicitations answer ${question.elicitationId}`);
      }
    },
  };
}

/**
 * What a tool search asked and found (the meta `tool_search` and the provider's own search alike),
 * for example ` "add numbers" → 2 found: mcp__a__sum, mcp__a__add`.
 */
function searchNote(entry: RunTimelineCall): string {
  const summary = toolSearchCallSummary(entry);
  if (!summary) return '';
  const query = summary.query === undefined ? '' : ` ${JSON.stringify(truncate(summary.query, 60))}`;
  const found = summary.found;
  if (found === undefined) return query;
  const names = found.length === 0 ? '' : `: ${truncate(found.slice(0, 5).join(', '), 100)}`;
  return `${query} → ${found.length} found${names}`;
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
