import { loadConfig, secretValuesOf, type Config } from '../config/load-config.js';
import { createLogger } from '../logging/create-logger.js';
import type { Logger } from '../logging/logger.js';
import { startTelemetry } from '../telemetry/start-telemetry.js';
import { waitForShutdown } from './wait-for-shutdown.js';

/** What a role's `start` is given. */
export interface RoleContext {
  config: Config;
  /** The role's root logger, named after the role, masking the configuration's secret values. */
  logger: Logger;
  env: NodeJS.ProcessEnv;
}

/** A started role: what {@link runRole} closes when it is told to stop. */
export interface RunningRole {
  /** Closes the role; called once. */
  close(): Promise<void>;
}

/** One process role of agentq (warmer, worker, API, indexer): how to name it and start it. */
export interface RoleDefinition {
  /** The logger's name, for example `catalog-warmer`. */
  name: string;
  /** The telemetry service name, for example `agentq-warmer`. */
  serviceName: string;
  /** Starts the role: connections, workers, listeners, its ready line. */
  start(context: RoleContext): Promise<RunningRole>;
}

/** Options of {@link runRole}. */
export interface RunRoleOptions {
  /** @default process.env */
  env?: NodeJS.ProcessEnv;
  /** Resolves when the role must stop. @default the first SIGINT or SIGTERM */
  until?: Promise<unknown>;
}

/** Errors {@link runRole} has logged already, so that {@link runRoleProcess} does not print them again. */
const loggedErrors = new WeakSet<object>();

function markLogged(error: unknown): void {
  if (typeof error === 'object' && error !== null) loggedErrors.add(error);
}

/**
 * The start-up and shut-down every role shares: configuration from the environment, the root
 * logger, telemetry (off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set; started before the role so
 * its spans are kept), the role itself, then, on the first SIGINT or SIGTERM (or `until`), one
 * close of the role and the flush of telemetry. A failed start or close is logged and thrown.
 */
export async function runRole(role: RoleDefinition, options: RunRoleOptions = {}): Promise<void> {
  const env = options.env ?? process.env;
  const config = loadConfig(env);
  const logger = createLogger({ level: config.logLevel, name: role.name, secretValues: secretValuesOf(config) });
  const telemetry = await startTelemetry({ serviceName: role.serviceName, logger, env });
  try {
    let running: RunningRole;
    try {
      running = await role.start({ config, logger, env });
    } catch (error) {
      logger.error({ error: (error as Error).message }, `${role.name} failed to start`);
      markLogged(error);
      throw error;
    }
    const signal = await (options.until ?? waitForShutdown());
    logger.info({ signal }, 'stopping');
    try {
      await running.close();
    } catch (error) {
      logger.error({ error: (error as Error).message }, `${role.name} did not close cleanly`);
      markLogged(error);
      throw error;
    }
  } finally {
    await telemetry.shutdown();
  }
}

/**
 * {@link runRole} as a process's entry point (`tsx apps/<role>/src/main.ts`): exits 0 once the role
 * has closed, 1 when it failed to start or to close (already logged). An error before the logger
 * exists (an invalid configuration) is thrown, so that Node prints it and exits 1.
 */
export async function runRoleProcess(role: RoleDefinition): Promise<void> {
  try {
    await runRole(role);
  } catch (error) {
    if (typeof error === 'object' && error !== null && loggedErrors.has(error)) process.exit(1);
    throw error;
  }
  process.exit(0);
}
