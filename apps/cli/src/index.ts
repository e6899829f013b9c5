export { runCli } from './run-cli.js';
export { buildProgram } from './build-program.js';
export { EXIT_CODES } from './exit-codes.js';
export type { CliIo } from './cli-io.js';
export type { DevRedis } from './dev/find-redis.js';
export type { RunCommandOptions } from './commands/run-command.js';
export type { AddServerOptions } from './commands/servers-command.js';
