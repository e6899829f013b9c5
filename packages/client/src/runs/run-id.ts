import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * An id a producer may choose for a new run. A run id is the BullMQ job id of the run, so it
 * follows BullMQ's rules for custom ids (no `:`, not a bare integer) and stays short enough for
 * Redis keys and URLs.
 */
export const customRunIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be 1-128 letters, digits, "-", "_" or "." (no ":")')
  .refine((value) => !/^\d+$/.test(value), 'must not be a bare number');

/**
 * Any run id: a custom one, or one BullMQ gave a run made by a schedule
 * (`repeat:<scheduleId>:<epoch ms>`).
 */
export const runIdSchema = z.union([
  customRunIdSchema,
  z.string().regex(/^repeat:[A-Za-z0-9][A-Za-z0-9_.-]{0,99}:\d+$/, 'must be a run id'),
]);

/** A fresh run id. */
export function newRunId(): string {
  return `run-${randomUUID()}`;
}
