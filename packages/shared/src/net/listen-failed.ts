import { AgentqError } from '../errors/agentq-error.js';

/** Why a bind fails, by the system error code. */
const reasons: Record<string, string> = {
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name does not resolve',
  EAI_NONAME: 'the host name does not resolve',
  EADDRINUSE: 'the port is taken',
  EADDRNOTAVAIL: "the address is not one of this machine's",
  EACCES: 'the port needs privileges',
};

/**
 * The error of a listener (the API, a role's health listener) that cannot bind `host:port`:
 * `PORT_IN_USE` when the port is taken (naming the variable that picks another), else
 * `LISTEN_FAILED`, naming the address, why, and the variables that set them, so that a mistyped
 * host is not taken for something else (a name lookup failing here is not Redis being down).
 */
export function listenFailed(
  error: unknown,
  options: { what: string; host: string; port: number; hostVariable: string; portVariable: string },
): AgentqError {
  const code = (error as { code?: unknown } | null)?.code;
  const reason = typeof code === 'string' ? reasons[code] : undefined;
  const detail = error instanceof Error ? error.message : String(error);
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  if (code === 'EADDRINUSE') {
    return new AgentqError({
      code: 'PORT_IN_USE',
      message: `the ${options.what} cannot listen on ${host}:${options.port}: the port is in use; pick another port with ${options.portVariable}`,
      cause: error,
    });
  }
  return new AgentqError({
    code: 'LISTEN_FAILED',
    message: `the ${options.what} cannot listen on ${host}:${options.port}${reason ? `: ${reason}` : ''} (${detail}); check ${options.hostVariable} and ${options.portVariable}`,
    cause: error,
  });
}
