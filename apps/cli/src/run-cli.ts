import { revealHiddenCharacters } from '@agentq/shared';
import { CommanderError } from 'commander';
import { processIo, type CliIo } from './cli-io.js';
import { buildProgram, isHelpExit } from './build-program.js';
import { EXIT_CODES, exitCodeFor } from './exit-codes.js';
import { describeError } from './output/describe-error.js';

/**
 * Runs `agentq` with `argv` (as `process.argv`) and returns the exit code. Errors are printed as
 * one line with their code, never with a stack trace (set `AGENTQ_DEBUG=1` to see one).
 */
export async function runCli(argv: readonly string[], given: CliIo = processIo()): Promise<number> {
  // Everything printed passes here, so no command can forget it: text from models, MCP servers,
  // tools and run specs must neither drive the terminal (ESC, carriage return, C1) nor reorder or
  // hide what the operator reads (bidi and zero-width characters). JSON output stays JSON of the
  // same value, its strings with the same characters written as `\uXXXX`.
  const io: CliIo = {
    ...given,
    out: (text) => given.out(revealHiddenCharacters(text)),
    err: (text) => given.err(revealHiddenCharacters(text)),
  };
  let exitCode: number = EXIT_CODES.ok;
  const program = buildProgram(io, (code) => {
    exitCode = code;
  });
  try {
    await program.parseAsync([...argv]);
    return exitCode;
  } catch (error) {
    if (isHelpExit(error)) return EXIT_CODES.ok;
    // Commander has already printed its message (unknown option, missing argument...).
    if (error instanceof CommanderError) return EXIT_CODES.usage;
    const redis = { redisUrl: io.env.REDIS_URL, clusterNodes: io.env.AGENTQ_REDIS_CLUSTER_NODES };
    io.err(describeError(error, { ...redis, prefix: io.env.AGENTQ_PREFIX }));
    if (io.env.AGENTQ_DEBUG && error instanceof Error && error.stack) io.err(error.stack);
    return exitCodeFor(error, redis);
  }
}
