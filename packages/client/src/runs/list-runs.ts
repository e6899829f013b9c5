import { AgentqError } from '@agentq/shared';
import type { Job, JobType } from 'bullmq';
import { z } from 'zod';
import type { ClientContext } from '../client-context.js';
import { runStateOf, type RunState } from './get-run.js';

/** States `listRuns` filters by. */
export const LISTED_RUN_STATES = ['waiting', 'active', 'delayed', 'waiting-approval', 'completed', 'failed'] as const;

/** The BullMQ job states behind each run state. */
const jobTypesOf: Record<(typeof LISTED_RUN_STATES)[number], JobType[]> = {
  waiting: ['waiting', 'prioritized'],
  active: ['active'],
  delayed: ['delayed'],
  'waiting-approval': ['waiting-children'],
  completed: ['completed'],
  failed: ['failed'],
};

/** Filter and page of {@link listRuns}. */
export const listRunsInputSchema = z.strictObject({
  /** Only runs in this state. @default every state */
  state: z.enum(LISTED_RUN_STATES).optional(),
  /** Runs to skip, newest first. @default 0 */
  offset: z.number().int().min(0).max(100_000).default(0),
  /** Runs per page. @default 25 */
  limit: z.number().int().min(1).max(200).default(25),
});

export type ListRunsInput = z.input<typeof listRunsInputSchema>;

/** One run in a list. */
export interface RunSummary {
  runId: string;
  state: RunState;
  model?: string;
  /** The prompt, or the last user message's text, cut to 200 characters. */
  prompt?: string;
  createdAt: number;
  finishedAt?: number;
  /** Tokens the run used, once it completed. */
  totalTokens?: number;
}

/** A page of runs, newest first, and how many match. */
export interface RunList {
  runs: RunSummary[];
  total: number;
  offset: number;
  limit: number;
}

/**
 * Lists recent runs, newest first, optionally in one state, a page at a time. A parked run is
 * listed as `waiting-approval` while one of its approvals is open and as `waiting-input` while it
 * waits only on a question (see {@link parkedStateOf}). The `waiting-approval` filter selects every
 * parked run, whichever it waits for; each run's `state` says which.
 */
export async function listRuns(context: ClientContext, input: ListRunsInput = {}): Promise<RunList> {
  const parsed = listRunsInputSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AgentqError({
      code: 'VALIDATION',
      field: issue?.path.join('.'),
      message: `Invalid run list filter: ${issue?.message ?? 'invalid'}`,
    });
  }
  const { state, offset, limit } = parsed.data;
  // Runs live in their shards' queues: count and page over all of them, merged by time.
  const queues = context.shards.all().map((shard) => context.runsQueueOf(shard));
  const types = state ? jobTypesOf[state] : Object.values(jobTypesOf).flat();
  const counts = await Promise.all(queues.map((queue) => queue.getJobCounts(...types)));
  const total = counts.flatMap((perQueue) => Object.values(perQueue)).reduce((sum, count) => sum + count, 0);
  // Each state's list is ordered by itself only: take enough of every one, then merge by time. One
  // read per queue takes every state's ids at once (one script), so a run moving between two of
  // them while the page is read is listed once, and not missed.
  const pages = await Promise.all(
    queues.map(async (queue) =>
      (await queue.getJobs(types, 0, offset + limit - 1, false)).map((job) => ({ queue, job })),
    ),
  );
  const listed = pages
    .flat()
    .filter(({ job }) => job?.id !== undefined)
    .sort((a, b) => b.job.timestamp - a.job.timestamp)
    .slice(offset, offset + limit);
  const runs = await Promise.all(
    listed.map(async ({ queue, job: snapshot }): Promise<RunSummary> => {
      let listedState = await listedStateOf(snapshot, state);
      // Listed under a filter, but its hash says it finished since: the state it is in now.
      if (state !== undefined && snapshot.finishedOn && listedState !== 'completed' && listedState !== 'failed')
        listedState = await listedStateOf(snapshot, undefined);
      // A run that finished after its snapshot was read: its end time and usage are in a new read.
      const finishedSince = (listedState === 'completed' || listedState === 'failed') && !snapshot.finishedOn;
      const job = (finishedSince ? await queue.getJob(String(snapshot.id)) : undefined) ?? snapshot;
      const data = job.data as { assistant?: { model?: unknown }; input?: { prompt?: unknown; messages?: unknown } };
      const summary: RunSummary = {
        runId: String(job.id),
        state: listedState,
        createdAt: job.timestamp,
      };
      if (typeof data?.assistant?.model === 'string') summary.model = data.assistant.model;
      const prompt = promptOfRun(data?.input);
      if (prompt !== undefined) summary.prompt = prompt.length > 200 ? `${prompt.slice(0, 199)}…` : prompt;
      if (job.finishedOn) summary.finishedAt = job.finishedOn;
      const usage = (job.returnvalue as { usage?: { totalTokens?: unknown } } | null | undefined)?.usage;
      if (typeof usage?.totalTokens === 'number') summary.totalTokens = usage.totalTokens;
      return summary;
    }),
  );
  return { runs, total, offset, limit };
}

/** A listed job's run state: the filter's, or its own; a parked run's from its open children. */
async function listedStateOf(job: Job, filter: (typeof LISTED_RUN_STATES)[number] | undefined): Promise<RunState> {
  const state = filter === undefined ? runStateOf(await job.getState()) : filter;
  return state === 'waiting-approval' ? await parkedStateOf(job) : state;
}

/**
 * What a parked run's job waits for, from its own open children: the worker parks a run on one
 * child in the approvals queue per approval (`appr-…`) or per question (`elic-…`), and only the
 * worker adds children to a run. Any open approval makes it `waiting-approval`; open questions alone
 * make it `waiting-input`. A job whose children cannot be told apart keeps `waiting-approval`, as
 * before. One read of the job's open children (at most a page of them), per parked run listed.
 */
async function parkedStateOf(job: Job): Promise<RunState> {
  const { unprocessed = [] } = await job.getDependencies({ unprocessed: { count: 100 } });
  const ids = unprocessed.map((key) => key.slice(key.lastIndexOf(':') + 1));
  if (ids.some((id) => id.startsWith('appr-'))) return 'waiting-approval';
  return ids.some((id) => id.startsWith('elic-')) ? 'waiting-input' : 'waiting-approval';
}

/** The prompt of a run input, or the text of its last user message. */
export function promptOfRun(input: { prompt?: unknown; messages?: unknown } | undefined): string | undefined {
  if (typeof input?.prompt === 'string') return input.prompt;
  if (!Array.isArray(input?.messages)) return undefined;
  for (const message of [...(input.messages as Array<{ role?: unknown; content?: unknown }>)].reverse()) {
    if (message?.role !== 'user') continue;
    if (typeof message.content === 'string') return message.content;
    if (Array.isArray(message.content)) {
      const text = (message.content as Array<{ type?: unknown; text?: unknown }>).find((part) => part?.type === 'text');
      if (typeof text?.text === 'string') return text.text;
    }
  }
  return undefined;
}
