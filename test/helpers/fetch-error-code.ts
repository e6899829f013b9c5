import { AgentqError } from '@agentq/shared';

/**
 * The agentq error code a fetch (or any promise) failed with, undefined when it succeeded (a
 * Response is drained so its connection is freed), or a `not-an-agentq-error` marker.
 */
export async function fetchErrorCode(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    const response = await promise;
    if (response instanceof Response) await response.body?.cancel();
    return undefined;
  } catch (error) {
    return AgentqError.isInstance(error) ? error.code : `not-an-agentq-error: ${String(error)}`;
  }
}
