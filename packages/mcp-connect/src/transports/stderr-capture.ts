import type { Stream } from 'node:stream';
import type { Logger } from '@agentq/shared';

/**
 * The one bound on a stdio server's stderr, in characters: the most of it kept for an error
 * message, and the most of one chunk written to the debug log.
 */
export const STDERR_CAP = 2_000;

/**
 * Collects a stdio server's stderr: each chunk goes to the debug log, and the last
 * {@link STDERR_CAP} characters are kept so a server that dies while starting can say why in the
 * connect error. A server that logs without end costs a bounded amount of memory.
 */
export class StderrCapture {
  private kept = '';

  constructor(private readonly logger: Logger) {}

  /** Starts reading `stream`; a missing stream (stderr not piped) is ignored. */
  attach(stream: Stream | null): void {
    stream?.on('data', (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      // Server chatter on stderr is diagnostics, not something a run should wait on or print.
      this.logger.debug({ stderr: text.trimEnd().slice(0, STDERR_CAP) }, 'mcp server stderr');
      this.kept = (this.kept + text).slice(-STDERR_CAP);
    });
  }

  /** The last characters the server wrote to stderr, trimmed; empty when it wrote nothing. */
  tail(): string {
    return this.kept.trim();
  }
}
