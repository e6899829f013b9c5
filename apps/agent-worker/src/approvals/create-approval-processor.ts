import {
  approvalJobSchema,
  approvalResultSchema,
  contextFromTrace,
  withSpan,
  type ApprovalJob,
  type ApprovalResult,
  type Logger,
} from '@agentq/shared';
import { settleApproval, type RedisConnection } from '@agentq/store';
import type { Job } from 'bullmq';

/** Options of {@link createApprovalProcessor}. */
export interface ApprovalProcessorOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  logger: Logger;
  /**
   * Slack when deciding whether the job ran because its delay ran out, in ms.
   * @default 250
   */
  expirySlackMs?: number;
}

/**
 * The `approvals` processor. An approval job runs when a decision promoted it or when its delay
 * (the approval timeout) ran out. It returns the recorded decision; with none, a denial:
 * `expired` when the timeout passed, `no-decision` when something promoted it early without a
 * decision (Bull Board's "promote" button). Never an approval without a recorded decision. The
 * outcome is recorded, so a later `decide` gets `EXPIRED` or `ALREADY_DECIDED`.
 */
export function createApprovalProcessor(options: ApprovalProcessorOptions) {
  const slack = options.expirySlackMs ?? 250;
  return async (job: Job): Promise<ApprovalResult> => {
    const now = Date.now();
    const parsed = approvalJobSchema.safeParse(job.data);
    if (!parsed.success) {
      // Fail closed and let the run go on: a broken approval job can only ever deny.
      options.logger.error({ jobId: job.id, error: parsed.error.message }, 'invalid approval job data; denying');
      return { approvalId: String(job.id), approved: false, reason: 'no-decision', outcome: 'no-decision' };
    }
    const request = parsed.data;
    // The wait, recorded once it is over: from the request to the moment its job ran, under the
    // step that asked, whichever worker runs it.
    return await withSpan(
      'agentq.approval.wait',
      {
        parent: contextFromTrace(request.trace),
        startTime: Math.min(request.requestedAt, now),
        attributes: {
          'agentq.run.id': request.runId,
          'agentq.approval.id': request.approvalId,
          'agentq.tool.name': request.toolName,
        },
      },
      async (span) => {
        const result = await settle(request, now);
        span.setAttributes({ 'agentq.outcome': result.outcome, 'agentq.approval.approved': result.approved });
        return result;
      },
    );
  };

  async function settle(request: ApprovalJob, now: number): Promise<ApprovalResult> {
    const expired = now + slack >= request.expiresAt;
    const outcome = expired ? ('expired' as const) : ('no-decision' as const);
    const settled = await settleApproval({
      redis: options.redis,
      prefix: options.prefix,
      approvalId: request.approvalId,
      fallback: {
        outcome,
        decision: { approved: false, reason: outcome, decidedBy: `agentq:${outcome}`, decidedAt: now },
      },
    });
    if (!settled) {
      return { approvalId: request.approvalId, approved: false, reason: 'no-decision', outcome: 'no-decision' };
    }
    const { decision } = settled;
    return approvalResultSchema.parse({
      approvalId: request.approvalId,
      approved: settled.outcome === 'decision' && decision.approved,
      reason: decision.reason,
      decidedBy: decision.decidedBy,
      decidedAt: decision.decidedAt,
      via: decision.via,
      outcome: settled.outcome,
    });
  }
}
