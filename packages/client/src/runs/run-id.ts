import { randomUUID } from 'node:crypto';
import { z } from 'zod';

/**
 * A run id is the BullMQ job id of the run, so it follows BullMQ's rules for custom ids (no `:`,
 * not a bare integer) and stays short enough for Redis keys and URLs.
 */
export const runIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/, 'must be 1-128 letters, digits, "-", "_" or "." (no ":")')
  .refine((value) => !/^\d+$/.test(value), 'must not be a bare number');

/** A fresh run id. */
export function newRunId(): string {
  return `run-${randomUUID()}`;
}
