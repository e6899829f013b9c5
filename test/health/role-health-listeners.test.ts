import { AgentqError, QUEUE_NAMES, startHealthListener, silentLogger } from '@agentq/shared';
import { Queue } from 'bullmq';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestWorker } from '../worker/helpers/worker-harness.js';
import { createWarmerHarness, type WarmerHarness } from '../warmer/warmer-harness.js';

// Issue #24, item 5: the warmer and the worker answer /healthz and /readyz, as the API does, on an
// optional loopback listener.
let harness: WarmerHarness | undefined;
afterAll(async () => {
  await harness?.close();
}, 120_000);

async function get(port: number, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
}

async function refused(port: number): Promise<boolean> {
  return await fetch(`http://127.0.0.1:${port}/healthz`).then(
    () => false,
    () => true,
  );
}

describe('role health listeners', () => {
  it('are off unless a port is set; the warmer and the worker are ready once up, and stop listening on close', async () => {
    harness = await createWarmerHarness();
    const env = { AGENTQ_WARMER_HEALTH_PORT: '0', AGENTQ_WORKER_HEALTH_PORT: '0' };
    const warmer = await harness.startWarmer({ env });
    const worker = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix, env });
    const plain = await startTestWorker({ redisUrl: harness.ctx.redisUrl, prefix: harness.ctx.prefix });
    expect(plain.healthPort).toBeUndefined();
    await plain.close();

    for (const port of [warmer.healthPort, worker.healthPort]) {
      expect(port).toBeTypeOf('number');
      expect(await get(port as number, '/healthz')).toBe(200);
      expect(await get(port as number, '/readyz')).toBe(200);
      expect(await get(port as number, '/metrics')).toBe(404);
    }
    await worker.close();
    await warmer.close();
    expect(await refused(worker.healthPort as number)).toBe(true);
    expect(await refused(warmer.healthPort as number)).toBe(true);
  }, 120_000);

  it('answers 503 on /readyz while the role is not ready', async () => {
    let ready = false;
    const listener = await startHealthListener({
      host: '127.0.0.1',
      port: 0,
      role: 'test',
      logger: silentLogger(),
      ready: async () => ready,
      variables: { host: 'AGENTQ_HEALTH_HOST', port: 'AGENTQ_WORKER_HEALTH_PORT' },
    });
    if (!listener) throw new Error('no listener');
    try {
      expect(await get(listener.port, '/readyz')).toBe(503);
      expect(await get(listener.port, '/healthz')).toBe(200);
      ready = true;
      expect(await get(listener.port, '/readyz')).toBe(200);
    } finally {
      await listener.close();
    }
  });

  it('fails with LISTEN_FAILED (PORT_IN_USE for a taken port) naming the address and its variables', async () => {
    const options = {
      role: 'agent-worker',
      logger: silentLogger(),
      ready: async () => true,
      variables: { host: 'AGENTQ_HEALTH_HOST', port: 'AGENTQ_WORKER_HEALTH_PORT' },
    };
    const unresolvable = await startHealthListener({ ...options, host: 'locahost.invalid', port: 0 }).catch(
      (error: unknown) => error,
    );
    expect(AgentqError.isInstance(unresolvable) && unresolvable.code).toBe('LISTEN_FAILED');
    expect((unresolvable as Error).message).toContain(
      'agent-worker health listener cannot listen on locahost.invalid:0',
    );
    expect((unresolvable as Error).message).toContain('check AGENTQ_HEALTH_HOST and AGENTQ_WORKER_HEALTH_PORT');

    const first = await startHealthListener({ ...options, host: '127.0.0.1', port: 0 });
    if (!first) throw new Error('no listener');
    try {
      const taken = await startHealthListener({ ...options, host: '127.0.0.1', port: first.port }).catch(
        (error: unknown) => error,
      );
      expect(AgentqError.isInstance(taken) && taken.code).toBe('PORT_IN_USE');
      expect((taken as Error).message).toContain(
        `127.0.0.1:${first.port}: the port is in use; pick another port with AGENTQ_WORKER_HEALTH_PORT`,
      );
    } finally {
      await first.close();
    }
  });
  it('close what they started when their listener cannot start, so the caller is left with no consumer', async () => {
    harness ??= await createWarmerHarness();
    const { ctx } = harness;
    const taken = await startHealthListener({
      host: '127.0.0.1',
      port: 0,
      role: 'test',
      logger: silentLogger(),
      ready: async () => true,
      variables: { host: 'AGENTQ_HEALTH_HOST', port: 'AGENTQ_WORKER_HEALTH_PORT' },
    });
    if (!taken) throw new Error('no listener');
    const queues = Object.values(QUEUE_NAMES).map(
      (name) => new Queue(name, { connection: ctx.redis, prefix: ctx.prefix }),
    );
    const consumers = async () => (await Promise.all(queues.map((queue) => queue.getWorkers()))).flat().length;
    try {
      const port = String(taken.port);
      const worker = await startTestWorker({
        redisUrl: ctx.redisUrl,
        prefix: ctx.prefix,
        env: { AGENTQ_WORKER_HEALTH_PORT: port },
      }).catch((error: unknown) => error);
      expect(AgentqError.isInstance(worker) && worker.code).toBe('PORT_IN_USE');
      expect(await consumers()).toBe(0);
      const warmer = await harness
        .startWarmer({ env: { AGENTQ_WARMER_HEALTH_PORT: port } })
        .catch((error: unknown) => error);
      expect(AgentqError.isInstance(warmer) && warmer.code).toBe('PORT_IN_USE');
      expect(await consumers()).toBe(0);
    } finally {
      await taken.close();
      await Promise.all(queues.map((queue) => queue.close()));
    }
  }, 120_000);
});
