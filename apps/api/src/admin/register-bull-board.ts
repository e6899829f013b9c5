import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { QUEUE_NAMES } from '@agentq/shared';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';

/** Base path of Bull Board. */
export const BULL_BOARD_PATH = '/admin/queues';

/**
 * Whether a Bull Board request would write a decision: adding a job to `decisions` or replacing a
 * job's data there. Such a job decides an approval in whatever name it carries, so decisions are
 * taken in the inbox (recorded as the logged-in token) and Bull Board only shows and cleans them.
 */
export function writesDecision(method: string, url: string): boolean {
  const path = url.split('?')[0] ?? '';
  const base = `${BULL_BOARD_PATH}/api/queues/${QUEUE_NAMES.decisions}/`;
  if (!path.startsWith(base)) return false;
  const rest = path.slice(base.length);
  return (method === 'POST' && rest === 'add') || (method === 'PATCH' && /^[^/]+\/update-data$/.test(rest));
}

/** One queue on the board: its name, and for the queues of a run shard the shard's label. */
export interface BoardQueue {
  name: string;
  /** `r3` for the queues of run shard 3; absent with a single run shard. */
  shard?: string;
  queue: Queue;
}

/**
 * Mounts Bull Board for every agentq queue (the run queues once per run shard, named
 * `<shard>.<queue>`). `approvals` is read-only: promoting or removing an
 * approval job by hand would resume a run without a recorded decision or strand it.
 */
export async function registerBullBoard(scope: FastifyInstance, queues: readonly BoardQueue[]): Promise<void> {
  const serverAdapter = new FastifyAdapter();
  serverAdapter.setBasePath(BULL_BOARD_PATH);
  createBullBoard({
    queues: queues.map(
      ({ name, shard, queue }) =>
        new BullMQAdapter(queue, {
          prefix: shard ? `${shard}.` : undefined,
          readOnlyMode: name === QUEUE_NAMES.approvals,
          description:
            name === QUEUE_NAMES.approvals ? 'Read-only: decide approvals in the inbox (/admin/approvals)' : '',
        }),
    ),
    // @bull-board/fastify pins its own copy of @bull-board/api; the two copies differ only in
    // private members, so the adapter is structurally what createBullBoard expects.
    serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
    options: { uiConfig: { boardTitle: 'agentq' } },
  });
  await scope.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
}
