import {
  approvalJobSchema,
  approvalResultSchema,
  contextFromTrace,
  RetryLaterError,
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
   * Slack when deciding whether the job ran because its delay ran out, in ms: an expiry at most
   * this far ahead by Redis's clock counts as come.
   * @default 250
   */
  expirySlackMs?: number;
  /**
   * How many times an undecided approval job may start before its expiry (by Redis's clock) and
   * be put back to wait for the rest. Past it, the approval is settled `no-decision`: a worker
   * clock that keeps promoting the job early must not spin it until the expiry.
   * @default 20
   */
  maxEarlyStarts?: number;
}

/**
 * The `approvals` processor. An approval job runs when a decision promoted it or when its delay
 * (the approval timeout) ran out. It returns the recorded decision; with none, a denial
 * `expired`, once the expiry has come by Redis's clock. Never an approval without a recorded
 * decision. The outcome is recorded, so a later `decide` gets `EXPIRED` or `ALREADY_DECIDED`.
 *
 * BullMQ promotes a delayed job by the clock of the worker that looks, so a worker whose clock
 * runs fast (or a promote by hand through BullMQ's own API; Bull Board takes no write on `approvals`) starts the job early. Without a decision it then
 * goes back to delayed for the time Redis says is left (`RetryLaterError`), until it has started
 * `maxEarlyStarts` times; then it is settled `no-decision`.
 */
export function createApprovalProcessor(options: ApprovalProcessorOptions) {
  const slack = options.expirySlackMs ?? 250;
  const maxEarlyStarts = options.maxEarlyStarts ?? 20;
  return async (job: Job): Promise<ApprovalResult> => {
    const now = Date.now();
    const parsed = approvalJobSchema.safeParse(job.data);
    if (!parsed.success) {
      // Fail closed and let the run go on: a broken approval job can only ever deny.
      options.logger.error({ jobId: job.id, error: parsed.error.message }, 'invalid approval job data; denying');
      return { approvalId: String(job.id), approved: false, reason: 'no-decision', outcome: 'no-decision' };
    }
    const request = parsed.data;
    // Settled before the span opens: a job that started early and goes back to wait has no wait
    // to record yet.
    const result = await settle(options, request, {
      now,
      slackMs: slack,
      startedEarlyTooOften: job.attemptsStarted > maxEarlyStarts,
      maxEarlyStarts,
    });
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
        span.setAttributes({ 'agentq.outcome': result.outcome, 'agentq.approval.approved': result.approved });
        return result;
      },
    );
  };
}

/** Settles one approval as its job runs, or throws `RetryLaterError` when it started early. */
async function settle(
  options: ApprovalProcessorOptions,
  request: ApprovalJob,
  run: { now: number; slackMs: number; startedEarlyTooOften: boolean; maxEarlyStarts: number },
): Promise<ApprovalResult> {
  const store = { redis: options.redis, prefix: options.prefix, approvalId: request.approvalId };
  const expired = {
    outcome: 'expired' as const,
    decision: { approved: false, reason: 'expired', decidedBy: 'agentq:expired', decidedAt: run.now },
  };
  let settled = await settleApproval({ ...store, fallback: expired, untilExpiry: { slackMs: run.slackMs } });
  if (settled && 'notYetMs' in settled) {
    if (!run.startedEarlyTooOften) {
      // By this worker's clock: the one BullMQ will promote the job by when it runs here again.
      throw new RetryLaterError({
        message: `approval ${request.approvalId} started ${settled.notYetMs} ms before its expiry; waiting`,
        retryAfterMs: settled.notYetMs,
      });
    }
    options.logger.warn(
      { approvalId: request.approvalId, leftMs: settled.notYetMs, maxEarlyStarts: run.maxEarlyStarts },
      'approval job keeps starting before its expiry; settling it without a decision',
    );
    settled = await settleApproval({
      ...store,
      fallback: {
        outcome: 'no-decision',
        decision: { approved: false, reason: 'no-decision', decidedBy: 'agentq:no-decision', decidedAt: run.now },
      },
    });
  }
  if (!settled || 'notYetMs' in settled) {
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
