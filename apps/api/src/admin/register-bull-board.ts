import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import { QUEUE_NAMES } from '@agentq/shared';
import type { Queue } from 'bullmq';
import type { FastifyInstance } from 'fastify';
import { boardQueueName, boardWriteRefusal, type BoardQueueName } from './board-write-policy.js';

/** Base path of Bull Board. */
export const BULL_BOARD_PATH = '/admin/queues';

/** One queue on the board: its name, and for the queues of a run shard the shard's label. */
export interface BoardQueue extends BoardQueueName {
  queue: Queue;
}

/**
 * Mounts Bull Board for every agentq queue (the run queues once per run shard, named
 * `<shard>.<queue>`), in its own plugin scope. The mount declares the access of every route Bull
 * Board registers (the admin scope; its pages send a browser to the login form), and a guard reads
 * the matched route and the decoded queue name to keep the queues that carry authority out of
 * reach (see `boardWriteRefusal`). `approvals` is also read-only in the board's own terms.
 */
export async function registerBullBoard(parent: FastifyInstance, queues: readonly BoardQueue[]): Promise<void> {
  await parent.register(async (scope) => {
    scope.addHook('onRoute', (route) => {
      route.config = {
        ...route.config,
        access: { kind: 'board', page: !route.url.startsWith(`${BULL_BOARD_PATH}/api/`) },
      };
    });
    // A preHandler, after the CSRF rule of the admin surface, so a forged request is still told CSRF.
    scope.addHook('preHandler', async (request, reply) => {
      const refusal = boardWriteRefusal({
        method: request.method,
        route: (request.routeOptions.url ?? '').slice(BULL_BOARD_PATH.length),
        queueName: (request.params as { queueName?: string } | undefined)?.queueName,
        queues,
      });
      if (!refusal) return undefined;
      return reply.status(refusal.status).send({ error: { code: refusal.code, message: refusal.message } });
    });
    const adapters = queues.map((entry) => {
      const adapter = new BullMQAdapter(entry.queue, {
        prefix: entry.shard ? `${entry.shard}.` : undefined,
        readOnlyMode: entry.name === QUEUE_NAMES.approvals,
        description:
          entry.name === QUEUE_NAMES.approvals
            ? 'Read-only: decide approvals in the inbox (/admin/approvals)'
            : entry.name === QUEUE_NAMES.decisions
              ? 'Decide approvals in the inbox (/admin/approvals); jobs here can only be removed'
              : '',
      });
      // The guard finds a queue by the name the board routes it by; the two must agree.
      if (adapter.getName() !== boardQueueName(entry)) {
        throw new Error(`Bull Board names queue ${entry.name} ${adapter.getName()}, not ${boardQueueName(entry)}`);
      }
      return adapter;
    });
    const serverAdapter = new FastifyAdapter();
    serverAdapter.setBasePath(BULL_BOARD_PATH);
    createBullBoard({
      queues: adapters,
      // @bull-board/fastify pins its own copy of @bull-board/api; the two copies differ only in
      // private members, so the adapter is structurally what createBullBoard expects.
      serverAdapter: serverAdapter as unknown as Parameters<typeof createBullBoard>[0]['serverAdapter'],
      options: { uiConfig: { boardTitle: 'agentq' } },
    });
    await scope.register(serverAdapter.registerPlugin(), { prefix: BULL_BOARD_PATH });
  });
}
