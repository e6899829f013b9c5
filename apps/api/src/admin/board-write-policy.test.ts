import { appRoutes } from '@bull-board/api/dist/routes.js';
import { QUEUE_NAMES } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { boardWriteRefusal, type BoardQueueName } from './board-write-policy.js';

// Bull Board's own route list, from the installed package: the policy is judged against every
// route the board really registers, not against a list written here.
const writes = appRoutes.api.flatMap((route) =>
  [route.method]
    .flat()
    .filter((method) => method !== 'get')
    .flatMap((method) => [route.route].flat().map((path) => ({ method: method.toUpperCase(), route: path }))),
);
const queueWrites = writes.filter((write) => write.route.includes(':queueName'));

const queues: BoardQueueName[] = [
  ...Object.values(QUEUE_NAMES).map((name) => ({ name })),
  { name: QUEUE_NAMES.agentRuns, shard: 'r2' },
  { name: QUEUE_NAMES.approvals, shard: 'r2' },
];

const allowedOn = (queueName: string) =>
  queueWrites
    .filter((write) => boardWriteRefusal({ ...write, queueName, queues }) === undefined)
    .map((write) => `${write.method} ${write.route}`)
    .sort();

describe('Bull Board write policy', () => {
  it('knows Bull Board writes to guard', () => {
    expect(queueWrites.length).toBeGreaterThan(15);
  });

  it('allows no write at all on approvals, sharded or not', () => {
    expect(allowedOn(QUEUE_NAMES.approvals)).toEqual([]);
    expect(allowedOn(`r2.${QUEUE_NAMES.approvals}`)).toEqual([]);
  });

  it('lets decisions be paused, limited and cleaned, never added, edited, retried or promoted', () => {
    expect(allowedOn(QUEUE_NAMES.decisions)).toEqual(
      [
        'PUT /api/queues/:queueName/pause',
        'PUT /api/queues/:queueName/resume',
        'PUT /api/queues/:queueName/concurrency',
        'PUT /api/queues/:queueName/rate-limit',
        'PUT /api/queues/:queueName/rate-limit/release',
        'PUT /api/queues/:queueName/:jobId/clean',
        'PUT /api/queues/:queueName/clean/:queueStatus',
        'PUT /api/queues/:queueName/empty',
        'PUT /api/queues/:queueName/obliterate',
        'PUT /api/queues/:queueName/job-schedulers/:schedulerId/remove',
      ].sort(),
    );
  });

  it('keeps the operator actions on agent-runs but refuses adding runs and editing their data', () => {
    for (const queueName of [QUEUE_NAMES.agentRuns, `r2.${QUEUE_NAMES.agentRuns}`]) {
      const allowed = allowedOn(queueName);
      expect(allowed).toEqual(
        expect.arrayContaining([
          'PUT /api/queues/:queueName/:jobId/retry',
          'PUT /api/queues/:queueName/retry/:queueStatus',
          'PUT /api/queues/:queueName/:jobId/clean',
          'PUT /api/queues/:queueName/:jobId/promote',
          'PUT /api/queues/:queueName/pause',
        ]),
      );
      for (const refused of [
        'POST /api/queues/:queueName/add',
        'PATCH /api/queues/:queueName/:jobId/update-data',
        'PUT /api/queues/:queueName/:jobId/remove-unprocessed-children',
      ]) {
        expect(allowed, queueName).not.toContain(refused);
      }
    }
  });

  it('leaves catalog refreshes to the board, and keeps kb-ingest jobs from being added or edited', () => {
    expect(allowedOn(QUEUE_NAMES.catalogRefresh)).toHaveLength(queueWrites.length);
    const kb = allowedOn(QUEUE_NAMES.kbIngest);
    expect(kb).not.toContain('POST /api/queues/:queueName/add');
    expect(kb).not.toContain('PATCH /api/queues/:queueName/:jobId/update-data');
    expect(kb).toContain('PUT /api/queues/:queueName/:jobId/retry');
  });

  it('reads anything, refuses unknown queues, and allows only pause and resume of the whole board', () => {
    const read = { method: 'GET', route: '/api/queues/:queueName/:jobId', queues };
    expect(boardWriteRefusal({ ...read, queueName: QUEUE_NAMES.decisions })).toBeUndefined();
    const add = { method: 'POST', route: '/api/queues/:queueName/add', queues };
    // What a percent-escape decodes to is another name; the board has no such queue.
    expect(boardWriteRefusal({ ...add, queueName: 'Decisions' })).toMatchObject({ status: 404 });
    expect(boardWriteRefusal({ ...add, queueName: '%64ecisions' })).toMatchObject({ status: 404 });
    expect(boardWriteRefusal({ ...add, queueName: QUEUE_NAMES.decisions })).toMatchObject({
      status: 403,
      code: 'FORBIDDEN',
    });
    for (const write of writes.filter((candidate) => !candidate.route.includes(':queueName'))) {
      const refusal = boardWriteRefusal({ ...write, queueName: undefined, queues });
      const key = `${write.method} ${write.route}`;
      if (key === 'PUT /api/queues/pause' || key === 'PUT /api/queues/resume') expect(refusal, key).toBeUndefined();
      else expect(refusal, key).toMatchObject({ status: 403 });
    }
  });
});
