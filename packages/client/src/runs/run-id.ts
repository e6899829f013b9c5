import { randomUUID } from 'node:crypto';
import { QueueKeys } from 'bullmq';
import { z } from 'zod';

/**
 * An id a producer may choose for a new run. A run id is the BullMQ job id of the run, so it
 * follows BullMQ's rules for custom ids (no `:`, not a bare integer) and stays short enough for
 * Redis keys and URLs.
 */
/** The longest run id a producer may choose. */
export const RUN_ID_MAX_LENGTH = 128;

/** The longest run id of a scheduled run: `repeat:`, a schedule id of 100, `:` and 20 digits. */
export const SCHEDULED_RUN_ID_MAX_LENGTH = 'repeat:'.length + 100 + 1 + 20;

/**
 * Names a queue keeps for its own keys (`<queue>:wait`, `<queue>:meta`, …), from BullMQ itself so
 * that a new one is covered when BullMQ adds it, plus `metrics` (`<queue>:metrics:<state>`). A job
 * stored under such an id writes its hash where the queue's list or counter lives, and every later
 * add or take on that queue fails: a run id must never be one.
 */
const QUEUE_KEY_NAMES: ReadonlySet<string> = new Set([
  ...Object.keys(new QueueKeys().getKeys('q')).filter((name) => name !== ''),
  'metrics',
]);

export const customRunIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be 1-128 letters, digits, "-", "_" or "." (no ":")')
  .refine((value) => !/^\d+$/.test(value), 'must not be a bare number')
  .refine(
    (value) => !QUEUE_KEY_NAMES.has(value),
    'must not be a name the run queue keeps for its own keys (wait, meta, …)',
  );

/**
 * Any run id: a custom one, or one BullMQ gave a run made by a schedule
 * (`repeat:<scheduleId>:<epoch ms>`).
 */
export const runIdSchema = z.union([
  customRunIdSchema,
  z.string().regex(/^repeat:[A-Za-z0-9][A-Za-z0-9_.-]{0,99}:\d{1,20}$/, 'must be a run id'),
]);

/** A fresh run id. */
export function newRunId(): string {
  return `run-${randomUUID()}`;
}
