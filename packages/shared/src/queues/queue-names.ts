/** BullMQ queue names. They never contain `:`. */
export const QUEUE_NAMES = {
  catalogRefresh: 'catalog-refresh',
  agentRuns: 'agent-runs',
  approvals: 'approvals',
  decisions: 'decisions',
  kbIngest: 'kb-ingest',
} as const;

/** One of the queue names. */
export type QueueName = (typeof QUEUE_NAMES)[keyof typeof QUEUE_NAMES];
