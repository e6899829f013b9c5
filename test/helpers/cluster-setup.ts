import type { TestProject } from 'vitest/node';
import { startRedisCluster } from './redis-cluster.js';

declare module 'vitest' {
  export interface ProvidedContext {
    clusterUrl: string;
    clusterNodes: Array<{ host: string; port: number }>;
  }
}

/**
 * Global setup of the `cluster` project (`npm run test:cluster`): starts a private local 3-master
 * Redis Cluster from `redis-server` processes and hands its `redis+cluster://` URL to every file.
 * Fails loudly without `redis-server` and `redis-cli`: cluster tests never skip.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cluster = await startRedisCluster({ masters: 3 });
  project.provide('clusterUrl', cluster.url);
  project.provide('clusterNodes', cluster.nodes);
  console.log(`[cluster] using a local 3-master Redis Cluster at ${cluster.url}`);
  return async () => {
    await cluster.stop();
  };
}
