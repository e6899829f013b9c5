import type { Logger, RedisConnection } from '@agentq/shared';
import type { Queue } from 'bullmq';

/** Where approvals live: the connection, the deployment's prefix and, for `decide`, the queue. */
export interface ApprovalContext {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode; also the BullMQ prefix. */
  prefix: string;
  /**
   * The `approvals` queue, to promote a decided approval's job. When absent, `decide` opens one
   * on `redis` for the call.
   */
  queue?: Queue;
  logger?: Logger;
}
