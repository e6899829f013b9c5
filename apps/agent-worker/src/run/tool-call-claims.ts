import { AsyncLocalStorage } from 'node:async_hooks';
import type { RecordedToolResult } from '@agentq/store';

/** Thrown out of a claim when the call was already claimed or recorded by another attempt. */
export class ToolCallAlreadyClaimed extends Error {
  constructor(readonly recorded: RecordedToolResult) {
    super('tool call already claimed');
    this.name = 'ToolCallAlreadyClaimed';
  }
}

interface ClaimScope {
  /** Claims the current tool call; throws when it must not go out. Idempotent. */
  claim(): Promise<void>;
}

const scope = new AsyncLocalStorage<ClaimScope>();

/**
 * Runs `action` (a tool's execute) with a claim that whatever makes the external call takes at
 * the last moment, right before the request leaves: the MCP pool claims after it has a
 * connection, so a worker that dies while a server starts has claimed nothing.
 */
export function withToolCallClaim<T>(claim: () => Promise<void>, action: () => T): T {
  let claimed: Promise<void> | undefined;
  return scope.run({ claim: () => (claimed ??= claim()) }, action);
}

/** Claims the tool call in progress, if there is one (tools executed outside a run have none). */
export async function claimCurrentToolCall(): Promise<void> {
  await scope.getStore()?.claim();
}
