import type { ApprovalRecord } from '@agentq/store';

/** How long a run has taken, across its pauses. */
export interface RunTiming {
  /** When the run was enqueued (the job's creation), epoch ms. */
  enqueuedAt: number;
  /** When the run finished, epoch ms; absent while it has not. */
  finishedAt?: number;
  /**
   * From enqueue to finish (to `now` while unfinished), across every approval pause and resume.
   * A run's last BullMQ slice alone (`processedOn` is reset by each resume) would hide the waits.
   */
  totalMs: number;
  /** The part of `totalMs` spent waiting for approval decisions; overlapping waits count once. */
  approvalWaitMs: number;
}

/**
 * A run's timing from its job's times and its approval records: each approval waits from its
 * request to its decision (or, undecided, to the run's finish or `now`), clamped to the run.
 */
export function runTimingOf(options: {
  enqueuedAt: number;
  finishedAt?: number;
  approvals: readonly Pick<ApprovalRecord, 'request' | 'decision'>[];
  now: number;
}): RunTiming {
  const { enqueuedAt, finishedAt } = options;
  const end = Math.max(enqueuedAt, finishedAt ?? options.now);
  const waits = options.approvals
    .map((record): [number, number] => [
      Math.max(enqueuedAt, record.request.requestedAt),
      Math.min(end, record.decision?.decidedAt ?? end),
    ])
    .filter(([from, to]) => to > from)
    .sort((a, b) => a[0] - b[0]);
  let approvalWaitMs = 0;
  let coveredUntil = -Infinity;
  for (const [from, to] of waits) {
    const start = Math.max(from, coveredUntil);
    if (to > start) approvalWaitMs += to - start;
    coveredUntil = Math.max(coveredUntil, to);
  }
  return {
    enqueuedAt,
    ...(finishedAt === undefined ? {} : { finishedAt }),
    totalMs: end - enqueuedAt,
    approvalWaitMs,
  };
}
