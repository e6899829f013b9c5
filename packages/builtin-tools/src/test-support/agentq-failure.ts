import { AgentqError } from '@agentq/shared';

/** The `AgentqError` a promise rejects with; anything else (or fulfilling) throws. */
export async function agentqFailure(promise: Promise<unknown>): Promise<AgentqError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!AgentqError.isInstance(error)) throw new Error(`expected an agentq error, got ${String(error)}`);
  return error;
}
