import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { digestOf } from '../json/canonical-json.js';

/**
 * A run's incarnation: a random id the producer gives each run when it enqueues it. A run id can
 * be used again once its job is gone (cancelled, removed, or expired from the queue); the
 * incarnation tells those runs apart, and every approval id includes it, so nothing decided for
 * an earlier run under the same id can match a call of a later one.
 */
export const runIncarnationSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{16,64}$/, 'must be 16-64 letters, digits, "-" or "_" (set by the producer)');

/** A fresh incarnation: 16 random bytes, base64url. */
export function newRunIncarnation(): string {
  return randomBytes(16).toString('base64url');
}

/**
 * The incarnation of the run a BullMQ job holds: the one its producer stored in the job data, or,
 * for a job added without one (a producer older than incarnations, a job scheduler's firing, a
 * job added by hand), one derived from the job's id and its creation time in ms. BullMQ sets both
 * when the job is added and keeps them for the job's life, so the derived value is stable across
 * the job's attempts and differs for a job added again under the same id later. It is a digest, so
 * it is as opaque as a random one; it is only as unpredictable as the creation time, which is why
 * producers set a random one.
 */
export function runIncarnationOf(job: { id?: string; timestamp: number; data: unknown }): string {
  const data = job.data as { incarnation?: unknown } | null | undefined;
  const stored = runIncarnationSchema.safeParse(data?.incarnation);
  if (stored.success) return stored.data;
  return `job-${digestOf(['run-incarnation', String(job.id), job.timestamp], 32)}`;
}

/**
 * Whether a record a worker wrote for a run id (checkpoint, tool-result journal entry) belongs to
 * the run of `incarnation`: it names that incarnation, or none (written before incarnations). A
 * record naming another one is an earlier run's under the same id.
 */
export function isOfRunIncarnation(record: { incarnation?: string | undefined }, incarnation: string): boolean {
  return record.incarnation === undefined || record.incarnation === incarnation;
}
