import { osUserName, type ApprovalInfo, type PendingApprovalInfo } from '@agentq/client';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatTable } from '../output/format-table.js';
import { withClient } from '../with-client.js';

/** `agentq approvals list`: what is waiting for a decision. */
export async function listApprovalsCommand(io: CliIo, options: { run?: string; json?: boolean }): Promise<number> {
  return await withClient(io, async (client) => {
    const approvals = await client.listPendingApprovals({ runId: options.run });
    if (options.json) {
      io.out(JSON.stringify(approvals, null, 2));
      return EXIT_CODES.ok;
    }
    if (approvals.length === 0) {
      io.out('No pending approvals.');
      return EXIT_CODES.ok;
    }
    io.out(formatPendingApprovals(approvals));
    return EXIT_CODES.ok;
  });
}

/**
 * `agentq approvals approve|deny <id>`: records a decision once and wakes the run. The decision is
 * recorded as taken by the OS user through the CLI; who decided is not an option.
 */
export async function decideCommand(
  io: CliIo,
  approvalId: string,
  options: { approved: boolean; reason?: string },
): Promise<number> {
  return await withClient(io, async (client) => {
    const decision = await client.decide({
      approvalId,
      approved: options.approved,
      reason: options.reason,
      decidedBy: osUserName(),
      via: 'cli',
    });
    io.out(
      `${decision.approved ? 'Approved' : 'Denied'} ${approvalId}${decision.reason ? ` (${decision.reason})` : ''}; the run resumes.`,
    );
    return EXIT_CODES.ok;
  });
}

/** `agentq approvals show <id>`: one approval and its decision, for audits. */
export async function showApprovalCommand(io: CliIo, approvalId: string, options: { json?: boolean }): Promise<number> {
  return await withClient(io, async (client) => {
    const record = await client.getApproval(approvalId);
    if (options.json) {
      io.out(JSON.stringify(record, null, 2));
      return EXIT_CODES.ok;
    }
    for (const line of formatApprovalRecord(record)) io.out(line);
    return EXIT_CODES.ok;
  });
}

/**
 * Where a gated call goes: its MCP server's id, or `(builtin)` for a tool of agentq's own. Wire
 * names of look-alike servers (`github`, `github-`) differ only in a hash, so the approver is shown
 * the server itself.
 */
export function approvalServerOf(request: Pick<PendingApprovalInfo, 'serverId'>): string {
  return request.serverId ?? '(builtin)';
}

/** How much of a call's arguments one table cell or status line shows. */
const ARGUMENTS_PREVIEW_LENGTH = 60;

/**
 * A call's arguments as one line of JSON, cut to `ARGUMENTS_PREVIEW_LENGTH` characters with a
 * trailing `…` when longer; `cut` says whether it was, so the caller can say where the rest is.
 */
export function argumentsPreview(input: unknown): { text: string; cut: boolean } {
  const text = JSON.stringify(input) ?? 'null';
  if (text.length <= ARGUMENTS_PREVIEW_LENGTH) return { text, cut: false };
  return { text: `${text.slice(0, ARGUMENTS_PREVIEW_LENGTH - 1)}…`, cut: true };
}

/**
 * The table `agentq approvals list` prints. A key past the cut could be the one that matters
 * (`{note: "…", target: "DELETE-EVERYTHING"}`), so a cut is marked and the table ends with where
 * to read the arguments whole.
 */
export function formatPendingApprovals(approvals: readonly PendingApprovalInfo[]): string {
  let anyCut = false;
  const table = formatTable(
    ['APPROVAL', 'RUN', 'SERVER', 'TOOL', 'EXPIRES', 'ARGUMENTS'],
    approvals.map((approval) => {
      const preview = argumentsPreview(approval.input);
      anyCut ||= preview.cut;
      return [
        approval.approvalId,
        approval.runId,
        approvalServerOf(approval),
        approval.toolName,
        new Date(approval.expiresAt).toISOString(),
        preview.text,
      ];
    }),
  );
  return anyCut
    ? `${table}\nArguments ending in … are cut: read them whole with \`agentq approvals show <id>\` before deciding.`
    : table;
}

/** The lines `agentq approvals show` prints: the call, its full arguments, and its decision. */
export function formatApprovalRecord(record: ApprovalInfo): string[] {
  const { request, decision } = record;
  const lines = [
    `Approval ${request.approvalId} · run ${request.runId} · server ${approvalServerOf(request)} · tool ${request.toolName}`,
    `Requested ${new Date(request.requestedAt).toISOString()}, expires ${new Date(request.expiresAt).toISOString()}`,
    'Arguments:',
    ...(JSON.stringify(request.input, null, 2) ?? 'null').split('\n').map((line) => `  ${line}`),
  ];
  if (!decision) return [...lines, 'Not decided yet.'];
  return [
    ...lines,
    `${decision.approved ? 'Approved' : 'Denied'} by ${decision.decidedBy}${decision.via ? ` via ${decision.via}` : ''} at ${new Date(decision.decidedAt).toISOString()}${decision.reason ? `: ${decision.reason}` : ''}`,
  ];
}
