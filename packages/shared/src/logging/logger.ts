/** Context attached to log lines. */
export type LogContext = Record<string, unknown>;

/**
 * The narrow logger every component receives. `main.ts` of each role creates the pino root with
 * {@link createLogger}; everything else gets `logger.child({ component, ... })`.
 */
export interface Logger {
  trace(context: LogContext, message?: string): void;
  trace(message: string): void;
  debug(context: LogContext, message?: string): void;
  debug(message: string): void;
  info(context: LogContext, message?: string): void;
  info(message: string): void;
  warn(context: LogContext, message?: string): void;
  warn(message: string): void;
  error(context: LogContext, message?: string): void;
  error(message: string): void;
  child(bindings: LogContext): Logger;
}
