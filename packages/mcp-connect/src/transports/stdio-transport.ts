import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { childEnvironment } from './child-environment.js';
import type { TransportOpener } from './transport-opener.js';

/** A stdio server: a child process speaking JSON-RPC on stdin/stdout, stderr captured. */
export const openStdioTransport: TransportOpener<'stdio'> = (transport, context) => {
  const stdio = new StdioClientTransport({
    command: transport.command,
    args: transport.args,
    env: childEnvironment(transport.env),
    cwd: transport.cwd,
    stderr: 'pipe',
  });
  // The SDK hands out the piped stream before the process starts, so nothing written early is lost.
  context.stderr.attach(stdio.stderr);
  return stdio;
};
