const marker = Symbol.for('agentq.elicitation-parked');

/**
 * Thrown out of a tool call whose MCP server asked a person something (policy `ask`) that has no
 * recorded answer yet: the attempt stops, the step is not recorded, and the run parks until the
 * elicitation is answered or expires. Internal to the worker: never shown to the model.
 */
export class ElicitationParkedError extends Error {
  private readonly [marker] = true;
  readonly elicitationId: string;

  constructor(options: { elicitationId: string; serverId: string }) {
    super(
      `MCP server ${options.serverId} asked a question (elicitation ${options.elicitationId}); the run waits for the answer`,
    );
    this.name = 'ElicitationParkedError';
    this.elicitationId = options.elicitationId;
  }

  static isInstance(error: unknown): error is ElicitationParkedError {
    return typeof error === 'object' && error !== null && marker in error;
  }
}
