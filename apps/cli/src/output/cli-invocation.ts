import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * How to run `agentq` where this process runs, for the commands the CLI suggests: `npm run agentq --`
 * when it was started by the checkout's npm script (or `npm start`), `npx agentq` when started by
 * npx, `agentq` when an `agentq` executable is on the PATH, and `npx agentq` otherwise (the
 * workspace links the bin, so that works in a checkout after `npm ci`).
 */
export function cliInvocation(env: Record<string, string | undefined>): string {
  const script = env.npm_lifecycle_event;
  if (script === 'agentq' || script === 'start') return 'npm run agentq --';
  if (env.npm_command === 'exec') return 'npx agentq';
  if (onPath('agentq', env.PATH)) return 'agentq';
  return 'npx agentq';
}

function onPath(name: string, path: string | undefined): boolean {
  for (const directory of (path ?? '').split(delimiter)) {
    if (directory === '' || directory.includes('node_modules')) continue;
    try {
      accessSync(join(directory, name), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}
