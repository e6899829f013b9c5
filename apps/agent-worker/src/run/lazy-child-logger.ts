import type { LogContext, Logger } from '@agentq/shared';

/**
 * `parent.child(bindings)`, made on the first line logged through it. A run keeps its logger for
 * as long as it waits on its model, and most runs log nothing: a child made up front (pino keeps
 * its bindings serialized, with a copy of the parent's state) would be held by each for nothing.
 */
export class LazyChildLogger implements Logger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: LogContext,
  ) {}

  private get logger(): Logger {
    return (this.made ??= this.parent.child(this.bindings));
  }

  trace(context: LogContext | string, message?: string): void {
    log(this.logger, 'trace', context, message);
  }

  debug(context: LogContext | string, message?: string): void {
    log(this.logger, 'debug', context, message);
  }

  info(context: LogContext | string, message?: string): void {
    log(this.logger, 'info', context, message);
  }

  warn(context: LogContext | string, message?: string): void {
    log(this.logger, 'warn', context, message);
  }

  error(context: LogContext | string, message?: string): void {
    log(this.logger, 'error', context, message);
  }

  // One child of the parent with both bindings, the way pino merges a child's child.
  child(bindings: LogContext): Logger {
    return this.made ? this.made.child(bindings) : new LazyChildLogger(this.parent, { ...this.bindings, ...bindings });
  }
}

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error';

function log(logger: Logger, level: Level, context: LogContext | string, message: string | undefined): void {
  if (typeof context === 'string') logger[level](context);
  else logger[level](context, message);
}
