import { osUserName } from '@agentq/client';
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
    io.out(
      formatTable(
        ['APPROVAL', 'RUN', 'TOOL', 'EXPIRES', 'ARGUMENTS'],
        approvals.map((approval) => [
          approval.approvalId,
          approval.runId,
          approval.toolName,
          new Date(approval.expiresAt).toISOString(),
          truncate(JSON.stringify(approval.input) ?? '', 60),
        ]),
      ),
    );
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
    const { request, decision } = record;
    io.out(`Approval ${request.approvalId} · run ${request.runId} · tool ${request.toolName}`);
    io.out(
      `Requested ${new Date(request.requestedAt).toISOString()}, expires ${new Date(request.expiresAt).toISOString()}`,
    );
    if (!decision) {
      io.out('Not decided yet.');
      return EXIT_CODES.ok;
    }
    io.out(
      `${decision.approved ? 'Approved' : 'Denied'} by ${decision.decidedBy}${decision.via ? ` via ${decision.via}` : ''} at ${new Date(decision.decidedAt).toISOString()}${decision.reason ? `: ${decision.reason}` : ''}`,
    );
    return EXIT_CODES.ok;
  });
}

function truncate(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}
