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

/** The table `agentq approvals list` prints. */
export function formatPendingApprovals(approvals: readonly PendingApprovalInfo[]): string {
  return formatTable(
    ['APPROVAL', 'RUN', 'SERVER', 'TOOL', 'EXPIRES', 'ARGUMENTS'],
    approvals.map((approval) => [
      approval.approvalId,
      approval.runId,
      approvalServerOf(approval),
      approval.toolName,
      new Date(approval.expiresAt).toISOString(),
      truncate(JSON.stringify(approval.input) ?? '', 60),
    ]),
  );
}

/** The lines `agentq approvals show` prints. */
export function formatApprovalRecord(record: ApprovalInfo): string[] {
  const { request, decision } = record;
  const lines = [
    `Approval ${request.approvalId} · run ${request.runId} · server ${approvalServerOf(request)} · tool ${request.toolName}`,
    `Requested ${new Date(request.requestedAt).toISOString()}, expires ${new Date(request.expiresAt).toISOString()}`,
  ];
  if (!decision) return [...lines, 'Not decided yet.'];
  return [
    ...lines,
    `${decision.approved ? 'Approved' : 'Denied'} by ${decision.decidedBy}${decision.via ? ` via ${decision.via}` : ''} at ${new Date(decision.decidedAt).toISOString()}${decision.reason ? `: ${decision.reason}` : ''}`,
  ];
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
