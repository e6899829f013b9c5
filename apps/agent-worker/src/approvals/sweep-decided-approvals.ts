import { type Logger } from '@agentq/shared';
import {
  approvalsOfGoneRuns,
  inspectApprovalRecords,
  pendingApprovalIds,
  redisTime,
  runGoneDecision,
  setAsideUnreadablePending,
  settleApproval,
  type RedisConnection,
} from '@agentq/store';
import { Job, type Queue } from 'bullmq';
import { promoteQuietly } from './add-approval-job.js';
import { logSetAsideRecords } from './log-set-aside-records.js';

/** Options of {@link sweepDecidedApprovals}. */
export interface SweepDecidedApprovalsOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  approvalsQueue: Queue;
  logger: Logger;
  /** Leave decisions younger than this to `decide` itself. @default 5000 */
  graceMs?: number;
  /** @default 500 */
  batchSize?: number;
}

/**
 * Promotes approval jobs whose decision is recorded but which are still delayed: `decide` records
 * first and promotes second, so a crash in between would otherwise hold the decision until the
 * approval expires. Returns how many it promoted.
 *
 * It also settles the undecided approvals in its batch that nothing else will: those whose run is
 * gone (`no-decision`, the answer a late decision already gets) and those past their expiry whose
 * approval job did not settle them (`expired`). An approval whose run job was removed loses its
 * approval job with it, so without this it would stay pending for good, and, scored by an expiry
 * long past, fill the low end of every batch ahead of the decisions waiting to be delivered.
 *
 * For the same reason it takes out of the pending set the ids in its batch whose record cannot be
 * read (gone, or there but damaged), and logs them; a damaged record itself is kept for inspection.
 *
 * Its time is Redis's (one `TIME` per sweep), the clock every expiry is judged by: a sweeper on a
 * host whose clock runs fast must not expire approvals early.
 */
export async function sweepDecidedApprovals(options: SweepDecidedApprovalsOptions): Promise<number> {
  const now = await redisTime(options.redis);
  const ids = await pendingApprovalIds({
    redis: options.redis,
    prefix: options.prefix,
    maxScore: now - (options.graceMs ?? 5_000),
    limit: options.batchSize ?? 500,
  });
  if (ids.length === 0) return 0;
  const store = { redis: options.redis, prefix: options.prefix };
  const { records, unreadable } = await inspectApprovalRecords({ ...store, approvalIds: ids });
  logSetAsideRecords(
    options.logger,
    'approval',
    await setAsideUnreadablePending({ ...store, records: 'approvals', unreadable }),
  );
  const settled = await settleStranded(options, {
    now,
    requests: records.filter((record) => record.decision === null).map((record) => record.request),
  });
  let promoted = 0;
  const jobless: typeof records = [];
  for (const record of records) {
    if (!record.decision || record.outcome !== 'decision') continue;
    const job = await Job.fromId(options.approvalsQueue, record.request.approvalId);
    if (!job) jobless.push(record);
    if (!job || !(await job.isDelayed())) continue;
    if (await promoteQuietly(job, options.logger)) promoted += 1;
  }
  settled.runGone += await settleDecidedOfGoneRuns(options, now, jobless);
  if (promoted > 0)
    options.logger.info({ promoted }, 'delivered decided approvals the deciding process did not promote');
  if (settled.runGone + settled.expired > 0)
    options.logger.info(settled, 'settled approvals whose run is gone or whose expiry passed unsettled');
  return promoted;
}

/**
 * Settles decided approvals that no approval job will deliver because their run is gone with it
 * (cancelled or removed after the decision): the decision stays recorded, and the id leaves the
 * pending set, where, scored by its decision time, it would sit at the low end of every batch.
 * Returns how many it settled.
 */
async function settleDecidedOfGoneRuns(
  options: SweepDecidedApprovalsOptions,
  now: number,
  jobless: Array<{ request: Parameters<typeof approvalsOfGoneRuns>[0]['requests'][number] }>,
): Promise<number> {
  if (jobless.length === 0) return 0;
  const requests = jobless.map((record) => record.request);
  const gone = await approvalsOfGoneRuns({ redis: options.redis, prefix: options.prefix, requests });
  let settled = 0;
  for (const request of requests) {
    if (!gone.has(request.approvalId)) continue;
    // The recorded decision is kept; the fallback is only for the (impossible) undecided case.
    await settleApproval({
      redis: options.redis,
      prefix: options.prefix,
      approvalId: request.approvalId,
      fallback: { outcome: 'no-decision', decision: runGoneDecision(now) },
    });
    settled += 1;
  }
  return settled;
}

/** Settles undecided approvals whose run is gone, or whose expiry passed, and counts them. */
async function settleStranded(
  options: SweepDecidedApprovalsOptions,
  batch: { now: number; requests: Parameters<typeof approvalsOfGoneRuns>[0]['requests'] },
): Promise<{ runGone: number; expired: number }> {
  const counts = { runGone: 0, expired: 0 };
  const gone = await approvalsOfGoneRuns({ redis: options.redis, prefix: options.prefix, requests: batch.requests });
  for (const request of batch.requests) {
    const runGone = gone.has(request.approvalId);
    if (!runGone && request.expiresAt > batch.now) continue;
    // The settle keeps a decision recorded in the meantime; only an undecided approval gets this,
    // and an expiry only once Redis's clock, checked again in the same step, has reached it.
    const settled = await settleApproval({
      redis: options.redis,
      prefix: options.prefix,
      approvalId: request.approvalId,
      fallback: runGone
        ? { outcome: 'no-decision', decision: runGoneDecision(batch.now) }
        : {
            outcome: 'expired',
            decision: { approved: false, reason: 'expired', decidedBy: 'agentq:expired', decidedAt: batch.now },
          },
      untilExpiry: runGone ? undefined : {},
    });
    if (settled && 'notYetMs' in settled) continue;
    if (runGone) counts.runGone += 1;
    else counts.expired += 1;
  }
  return counts;
}
