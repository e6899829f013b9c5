import { ValidationError } from '@agentq/shared';

/**
 * Runs a client call that was given the body's `spec`. The client names a spec's fields from the
 * spec itself (`assistant.mcpServers.0`); the route's own schema names them from the body
 * (`spec.assistant.mcpServers.0`), so a `VALIDATION` error about the spec is answered under
 * `spec.` too. Fields of the body beside the spec (`bodyFields`) are left as they are.
 */
export async function withSpecFields<T>(bodyFields: readonly string[], call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof ValidationError) || error.code !== 'VALIDATION') throw error;
    const issues = error.issues.map((issue) => {
      const first = issue.field.split('.')[0] ?? '';
      if (bodyFields.includes(first)) return issue;
      return { ...issue, field: issue.field === '' ? 'spec' : `spec.${issue.field}` };
    });
    throw new ValidationError({ what: 'request body', issues });
  }
}
