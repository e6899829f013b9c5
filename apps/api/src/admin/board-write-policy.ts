import { QUEUE_NAMES } from '@agentq/shared';

/** One queue on the board: its name, and for the queues of a run shard the shard's label. */
export interface BoardQueueName {
  name: string;
  /** `r3` for the queues of run shard 3; absent with a single run shard. */
  shard?: string;
}

/** The name Bull Board shows and routes a queue by: `<shard>.<queue>`, or the queue's own name. */
export function boardQueueName(queue: BoardQueueName): string {
  return queue.shard ? `${queue.shard}.${queue.name}` : queue.name;
}

// Routes are Bull Board's own patterns below its base path, as `METHOD /pattern`.
const QUEUE_CONTROLS = [
  'PUT /api/queues/:queueName/pause',
  'PUT /api/queues/:queueName/resume',
  'PUT /api/queues/:queueName/concurrency',
  'PUT /api/queues/:queueName/rate-limit',
  'PUT /api/queues/:queueName/rate-limit/release',
];
const REMOVALS = [
  'PUT /api/queues/:queueName/:jobId/clean',
  'PUT /api/queues/:queueName/clean/:queueStatus',
  'PUT /api/queues/:queueName/empty',
  'PUT /api/queues/:queueName/obliterate',
  'PUT /api/queues/:queueName/job-schedulers/:schedulerId/remove',
];

/**
 * The writes Bull Board may make on the queues that carry authority; every other write there is
 * refused, including any route a later Bull Board adds. Queues not listed take every write.
 *
 * - `approvals`: none. An approval job resumes its run when it completes: promoting, retrying or
 *   editing one by hand would resume a run without the decision a person recorded.
 * - `decisions`: pause, limits and removal only. A job there decides an approval in whatever name
 *   it carries, so adding, editing, retrying or promoting one would forge or replay a decision;
 *   dropping one only lets the approval time out (denied).
 * - `agent-runs`: the operator's usual actions (retry, promote, remove, pause, reschedule), but not
 *   adding a run (that needs the `runs` scope and the API's checks), editing a run's data (its
 *   approval policy is in it) nor removing a parked run's approval jobs.
 * - `kb-ingest`: the same operator actions, but no adding or editing: a job names a file or URL and
 *   where its request came from (`origin`), and only the producers that checked the source against
 *   `AGENTQ_KB_FILE_ROOT` and the egress policy may say so.
 */
/** What an operator does with the jobs of a work queue: retry, promote, reschedule. */
const JOB_ACTIONS = [
  'PUT /api/queues/:queueName/retry/:queueStatus',
  'PUT /api/queues/:queueName/:jobId/retry',
  'PUT /api/queues/:queueName/promote',
  'PUT /api/queues/:queueName/:jobId/promote',
  'PATCH /api/queues/:queueName/:jobId/delay',
  'PATCH /api/queues/:queueName/:jobId/priority',
];

const ALLOWED_WRITES: Readonly<Record<string, ReadonlySet<string>>> = {
  [QUEUE_NAMES.approvals]: new Set(),
  [QUEUE_NAMES.decisions]: new Set([...QUEUE_CONTROLS, ...REMOVALS]),
  [QUEUE_NAMES.agentRuns]: new Set([
    ...QUEUE_CONTROLS,
    ...REMOVALS,
    ...JOB_ACTIONS,
    'PATCH /api/queues/:queueName/job-schedulers/:schedulerId',
    'PUT /api/queues/:queueName/job-schedulers/:schedulerId/run',
  ]),
  [QUEUE_NAMES.kbIngest]: new Set([...QUEUE_CONTROLS, ...REMOVALS, ...JOB_ACTIONS]),
};

/** Writes that name no queue: pausing and resuming every queue (Bull Board skips read-only ones). */
const BOARD_WRITES = new Set(['PUT /api/queues/pause', 'PUT /api/queues/resume']);

/** Why {@link boardWriteRefusal} refuses, in the API's error terms. */
export interface BoardRefusal {
  status: 403 | 404;
  code: 'FORBIDDEN' | 'NOT_FOUND';
  message: string;
}

/**
 * Whether Bull Board may serve a request, judged from the route Fastify matched (`route`, the
 * pattern below the board's base path) and the decoded `queueName` parameter, never from the URL:
 * `%64ecisions` is `decisions` here. Reads are always allowed. Returns the refusal, or `undefined`.
 */
export function boardWriteRefusal(options: {
  method: string;
  route: string;
  queueName: string | undefined;
  queues: readonly BoardQueueName[];
}): BoardRefusal | undefined {
  const { method, queueName } = options;
  if (method === 'GET' || method === 'HEAD') return undefined;
  const key = `${method} ${options.route}`;
  if (queueName === undefined) {
    return BOARD_WRITES.has(key)
      ? undefined
      : { status: 403, code: 'FORBIDDEN', message: `Bull Board may not ${key} here` };
  }
  const queue = options.queues.find((candidate) => boardQueueName(candidate) === queueName);
  if (!queue) return { status: 404, code: 'NOT_FOUND', message: 'No such queue' };
  const allowed = ALLOWED_WRITES[queue.name];
  if (!allowed || allowed.has(key)) return undefined;
  return {
    status: 403,
    code: 'FORBIDDEN',
    message:
      queue.name === QUEUE_NAMES.agentRuns
        ? 'Runs are enqueued and changed through the API (runs scope), not through Bull Board'
        : queue.name === QUEUE_NAMES.kbIngest
          ? 'Knowledge base sources are added through the API (kbs scope) or the CLI, not through Bull Board'
          : `The ${queue.name} queue is read-only here: decide approvals in the inbox (/admin/approvals)`,
  };
}
