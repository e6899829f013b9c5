import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { childEnvironment } from './child-environment.js';
import { CappedReadBuffer } from './capped-read-buffer.js';
import type { TransportOpener } from './transport-opener.js';

/**
 * A stdio server: a child process speaking JSON-RPC on stdin/stdout, stderr captured. With a
 * `messageLimit`, one line of its stdout (one message) is capped while it is read: past the cap the
 * transport fails with the limit's error and closes, ending the process.
 */
export const openStdioTransport: TransportOpener<'stdio'> = (transport, context) => {
  const stdio = new StdioClientTransport({
    command: transport.command,
    args: transport.args,
    env: childEnvironment(transport.env),
    cwd: transport.cwd,
    stderr: 'pipe',
    // The SDK's own cap on its whole line buffer: the same bound, should the swap below not take.
    maxBufferSize: context.messageLimit ? context.messageLimit.maxBytes + 65_536 : undefined,
  });
  if (context.messageLimit) {
    // The SDK buffers a line until its end with no hook to count it, and fails past its cap with
    // an error no caller can tell apart; its buffer is swapped for one that counts each line and
    // fails with the limit's own error.
    const internals = stdio as unknown as { _readBuffer: unknown };
    if (!('_readBuffer' in internals)) throw new Error('the MCP SDK stdio transport has no line buffer to cap');
    internals._readBuffer = new CappedReadBuffer(context.messageLimit);
  }
  // The SDK hands out the piped stream before the process starts, so nothing written early is lost.
  context.stderr.attach(stdio.stderr);
  return stdio;
};
