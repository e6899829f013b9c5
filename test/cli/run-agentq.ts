import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root; `agentq` runs from there, as `npm start` does. */
export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url));
const bin = fileURLToPath(new URL('../../apps/cli/bin/agentq.js', import.meta.url));

/** What one `agentq` invocation did. */
export interface AgentqResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `agentq <args>` as a child process through the real bin shim. */
export function runAgentq(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<AgentqResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: repositoryRoot, env: { ...process.env, ...env }, timeout: timeoutMs },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Starts a long-running `agentq` command and collects its output. `detached` gives it a process
 * group of its own, so that a test can signal the group the way a terminal's Ctrl-C does.
 */
export function spawnAgentq(
  args: string[],
  env: Record<string, string>,
  options: { detached?: boolean } = {},
): { child: ChildProcess; output: () => string; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: repositoryRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, stderr: () => stderr, exited };
}
