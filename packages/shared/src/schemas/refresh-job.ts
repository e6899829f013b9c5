import { z } from 'zod';
import { serverIdSchema } from './server-definition.js';

/** Why a catalog refresh was requested. */
export const refreshReasonSchema = z.enum([
  'prewarm',
  'list-changed',
  'restart',
  'enable',
  'disable',
  'on-demand',
  'first-seen',
  'scheduled',
]);

/** Payload of a `catalog-refresh` job. */
export const refreshJobSchema = z.strictObject({
  serverId: serverIdSchema,
  reason: refreshReasonSchema,
  /**
   * When the refresh was asked for: epoch ms, or an ISO date-time (stored as epoch ms).
   * @default now
   */
  requestedAt: z
    .union([z.number().int().nonnegative(), z.iso.datetime({ offset: true }).transform((text) => Date.parse(text))])
    .default(() => Date.now()),
});

export type RefreshReason = z.output<typeof refreshReasonSchema>;
export type RefreshJob = z.output<typeof refreshJobSchema>;

/** Pub/sub message on `P:servers.changed`, published by every `ServerStore` change. */
export const serverChangeEventSchema = z.strictObject({
  type: z.enum(['put', 'remove', 'enabled', 'disabled']),
  serverId: serverIdSchema,
  /** Definition hash after the change (absent on remove). */
  definitionHash: z.string().optional(),
  /** Definition hash before the change (absent when the server is new). */
  previousHash: z.string().optional(),
});

export type ServerChangeEvent = z.output<typeof serverChangeEventSchema>;
