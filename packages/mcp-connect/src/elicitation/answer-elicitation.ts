import { checkElicitationFields, type ServerDefinition } from '@agentq/shared';

/** How agentq answers a server's `elicitation/create` (no person is there to ask). */
export type ElicitationPolicy = NonNullable<ServerDefinition['elicitation']>;

/** A form-mode elicitation request's parameters, as far as they are read here. */
export interface ElicitationRequest {
  mode?: string;
  message?: string;
  requestedSchema?: unknown;
}

/** The answer, and why: what a caller journals. */
export type ElicitationAnswer =
  | { action: 'accept'; content: Record<string, string | number | boolean | string[]> }
  | { action: 'decline'; reason: string };

type Content = Record<string, string | number | boolean | string[]>;

/**
 * Answers an elicitation by policy:
 * - `decline` (the default): declines;
 * - `accept-defaults`: accepts with every field's `default`, and declines when a required field has
 *   none, the request is not a form, or the defaults do not satisfy the requested schema.
 *
 * Whatever is accepted is checked against the requested schema first (types, `enum`/`oneOf`
 * values, string lengths and formats, number bounds and integers, array sizes), so an answer never
 * breaks the schema the server asked for. Pure: no I/O.
 */
export function answerElicitation(
  policy: ElicitationPolicy | undefined,
  request: ElicitationRequest,
): ElicitationAnswer {
  if ((policy ?? 'decline') === 'decline') return { action: 'decline', reason: 'the server policy declines' };
  // `ask` reaches here only where no run's tool call is there to park (a warmer listing tools).
  if (policy === 'ask') return { action: 'decline', reason: 'no run is waiting here to ask a person' };
  if (request.mode !== undefined && request.mode !== 'form') {
    return { action: 'decline', reason: `${request.mode} elicitation needs a person` };
  }
  const schema = asRecord(request.requestedSchema);
  const properties = asRecord(schema?.properties);
  if (!schema || schema.type !== 'object' || !properties) {
    return { action: 'decline', reason: 'the requested schema is not an object of fields' };
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((name) => typeof name === 'string') : [];
  const content: Content = {};
  for (const [name, field] of Object.entries(properties)) {
    const value = asRecord(field)?.default;
    if (value !== undefined) content[name] = value as Content[string];
  }
  const missing = required.filter((name) => !(name in content));
  if (missing.length > 0) {
    return { action: 'decline', reason: `no default for required field(s) ${missing.join(', ')}` };
  }
  const problem = checkElicitationFields(content, properties);
  if (problem) return { action: 'decline', reason: problem };
  return { action: 'accept', content };
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
