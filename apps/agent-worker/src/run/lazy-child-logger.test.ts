import type { LogContext, Logger } from '@agentq/shared';
import { describe, expect, it } from 'vitest';
import { LazyChildLogger } from './lazy-child-logger.js';

/** A logger that records its children and their lines. */
function recordingLogger(bindings: LogContext = {}, lines: unknown[][] = [], children: LogContext[] = []) {
  const write =
    (level: string) =>
    (...args: unknown[]) =>
      lines.push([level, bindings, ...args]);
  const logger: Logger = {
    trace: write('trace'),
    debug: write('debug'),
    info: write('info'),
    warn: write('warn'),
    error: write('error'),
    child: (more) => {
      children.push(more);
      return recordingLogger({ ...bindings, ...more }, lines, children).logger;
    },
  };
  return { logger, lines, children };
}

describe('LazyChildLogger', () => {
  it('makes the child on the first line only, once, and logs every line through it', () => {
    const { logger, lines, children } = recordingLogger();
    const lazy = new LazyChildLogger(logger, { runId: 'r1' });
    expect(children).toEqual([]);
    lazy.info({ step: 1 }, 'first');
    lazy.warn('second');
    expect(children).toEqual([{ runId: 'r1' }]);
    expect(lines).toEqual([
      ['info', { runId: 'r1' }, { step: 1 }, 'first'],
      ['warn', { runId: 'r1' }, 'second'],
    ]);
  });

  it('gives children that carry both bindings, also made lazily', () => {
    const { logger, lines, children } = recordingLogger();
    const nested = new LazyChildLogger(logger, { runId: 'r1' }).child({ component: 'tools' });
    expect(children).toEqual([]);
    nested.error({ code: 'X' }, 'failed');
    expect(lines).toEqual([['error', { runId: 'r1', component: 'tools' }, { code: 'X' }, 'failed']]);
  });
});
