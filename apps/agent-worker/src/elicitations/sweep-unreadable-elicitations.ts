import type { Logger } from '@agentq/shared';
import {
  inspectElicitationRecords,
  pendingElicitationIds,
  setAsideUnreadablePending,
  type RedisConnection,
} from '@agentq/store';
import { logSetAsideRecords } from '../approvals/log-set-aside-records.js';

/** Options of {@link sweepUnreadableElicitations}. */
export interface SweepUnreadableElicitationsOptions {
  redis: RedisConnection;
  /** Key prefix, already hash-tagged under cluster mode. */
  prefix: string;
  logger: Logger;
  /** @default 500 */
  batchSize?: number;
}

/**
 * Takes the pending elicitations at the low end of the pending set whose record cannot be read
 * (gone, or there but damaged) out of the set, and logs them; a damaged record itself is kept for
 * inspection. Nothing else would: their elicitation job, if any, settles nothing it cannot read.
 * Returns how many left the set.
 */
export async function sweepUnreadableElicitations(options: SweepUnreadableElicitationsOptions): Promise<number> {
  const store = { redis: options.redis, prefix: options.prefix };
  const ids = await pendingElicitationIds({ ...store, limit: options.batchSize ?? 500 });
  if (ids.length === 0) return 0;
  const { unreadable } = await inspectElicitationRecords({ ...store, elicitationIds: ids });
  const setAside = await setAsideUnreadablePending({ ...store, records: 'elicitations', unreadable });
  logSetAsideRecords(options.logger, 'elicitation', setAside);
  return setAside.length;
}
