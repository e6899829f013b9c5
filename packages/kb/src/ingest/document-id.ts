import { createHash } from 'node:crypto';
import type { KbSource } from '@agentq/shared';

/**
 * A document's id within its KB: a digest of where it comes from (the file path or the URL), so
 * adding the same place again replaces that document rather than adding a second one.
 */
export function documentIdOf(source: KbSource): string {
  const origin = source.type === 'file' ? `file:${source.path}` : `url:${new URL(source.url).href}`;
  return createHash('sha256').update(origin).digest('hex').slice(0, 16);
}

/** A chunk's id: stable for the same content, so re-writing a chunk after a crash overwrites it. */
export function chunkIdOf(options: { documentId: string; digest: string; ordinal: number }): string {
  return `${options.documentId}-${options.digest.slice(0, 12)}-${options.ordinal}`;
}
