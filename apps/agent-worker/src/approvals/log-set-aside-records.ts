import type { Logger } from '@agentq/shared';
import type { UnreadableRecord } from '@agentq/store';

/** How many ids of records found missing one log line names. */
const namedMissingIds = 20;

/**
 * Logs the pending approvals or elicitations a sweep took out of their pending set because their
 * record cannot be read. Each is logged once: out of the set, no sweep meets it again. A missing
 * record is ordinary debris (a key deleted by hand, a lost write) and is summed up in one warning;
 * a record that is there but unreadable is an error, one per id, naming the problem. That record is
 * kept for an operator to inspect.
 */
export function logSetAsideRecords(
  logger: Logger,
  kind: 'approval' | 'elicitation',
  setAside: readonly UnreadableRecord[],
): void {
  const missing = setAside.filter((entry) => entry.problem === 'missing').map((entry) => entry.id);
  if (missing.length > 0) {
    logger.warn(
      { count: missing.length, ids: missing.slice(0, namedMissingIds) },
      `took pending ${kind}s without a record out of the pending set`,
    );
  }
  for (const entry of setAside) {
    if (entry.problem === 'missing') continue;
    logger.error(
      { [`${kind}Id`]: entry.id, problem: entry.problem, error: entry.detail },
      `took a pending ${kind} whose record cannot be read out of the pending set; the record is kept for inspection`,
    );
  }
}
