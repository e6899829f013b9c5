import { osUserName } from '@agentq/client';
import { AgentqError, type ElicitationResponse, type ElicitationValue } from '@agentq/shared';
import type { CliIo } from '../cli-io.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatTable } from '../output/format-table.js';
import { withClient } from '../with-client.js';

/** `agentq elicitations list`: questions of MCP servers (policy `ask`) waiting for a person. */
export async function listElicitationsCommand(io: CliIo, options: { run?: string; json?: boolean }): Promise<number> {
  return await withClient(io, async (client) => {
    const pending = await client.listPendingElicitations({ runId: options.run });
    if (options.json) {
      io.out(JSON.stringify(pending, null, 2));
      return EXIT_CODES.ok;
    }
    if (pending.length === 0) {
      io.out('No pending elicitations.');
      return EXIT_CODES.ok;
    }
    io.out(
      formatTable(
        ['ELICITATION', 'RUN', 'SERVER', 'EXPIRES', 'MESSAGE'],
        pending.map(({ request }) => [
          request.elicitationId,
          request.runId,
          request.serverId,
          new Date(request.expiresAt).toISOString(),
          request.message.length > 60 ? `${request.message.slice(0, 59)}…` : request.message,
        ]),
      ),
    );
    return EXIT_CODES.ok;
  });
}

/** `agentq elicitations show <id>`: the question and the form its server asked for, or the answer. */
export async function showElicitationCommand(
  io: CliIo,
  elicitationId: string,
  options: { json?: boolean },
): Promise<number> {
  return await withClient(io, async (client) => {
    const record = await client.getElicitation(elicitationId);
    if (options.json) {
      io.out(JSON.stringify(record, null, 2));
      return EXIT_CODES.ok;
    }
    const { request, response } = record;
    io.out(
      `Elicitation ${request.elicitationId} · run ${request.runId} · server ${request.serverId} · tool ${request.toolName}`,
    );
    io.out(request.message);
    const fields = formFields(request.requestedSchema);
    if (fields.length > 0) {
      io.out(
        formatTable(
          ['FIELD', 'TYPE', 'REQUIRED', 'ALLOWED', 'DEFAULT'],
          fields.map((field) => [
            field.name,
            field.type,
            field.required ? 'yes' : '',
            field.allowed?.join(', ') ?? '',
            field.default === undefined ? '' : JSON.stringify(field.default),
          ]),
        ),
      );
    }
    if (!response) {
      io.out(`Not answered yet; expires ${new Date(request.expiresAt).toISOString()}.`);
      return EXIT_CODES.ok;
    }
    if (record.outcome === 'closed') {
      io.out(`Closed without an answer: its run ${response.answeredBy.replace(/^agentq:run-/, '')} first.`);
      return EXIT_CODES.ok;
    }
    io.out(
      `${response.response.action} by ${response.answeredBy}${response.via ? ` via ${response.via}` : ''} at ${new Date(response.answeredAt).toISOString()}`,
    );
    return EXIT_CODES.ok;
  });
}

/**
 * `agentq elicitations answer <id>`: `--accept --set field=value …`, `--decline` or `--cancel`.
 * Values are read by the field's type in the requested schema (numbers, `true`/`false`, lists
 * comma-separated); the answer is validated against the schema (`VALIDATION`, naming the field),
 * recorded once as the OS user through the CLI, and the run resumes.
 */
export async function answerElicitationCommand(
  io: CliIo,
  elicitationId: string,
  options: { accept?: boolean; decline?: boolean; cancel?: boolean; set?: string[] },
): Promise<number> {
  return await withClient(io, async (client) => {
    const chosen = (['accept', 'decline', 'cancel'] as const).filter((action) => options[action] === true);
    if (chosen.length !== 1) {
      throw new AgentqError({
        code: 'VALIDATION',
        field: 'action',
        message: 'Give one of --accept, --decline, --cancel',
      });
    }
    const action = chosen[0] as 'accept' | 'decline' | 'cancel';
    if (action !== 'accept' && (options.set?.length ?? 0) > 0) {
      throw new AgentqError({
        code: 'USAGE',
        field: 'set',
        message: `--set gives the fields of an accepted answer: drop it, or answer with --accept instead of --${action}`,
      });
    }
    let response: ElicitationResponse = { action } as ElicitationResponse;
    if (action === 'accept') {
      const record = await client.getElicitation(elicitationId);
      response = { action, content: contentOf(options.set ?? [], formFields(record.request.requestedSchema)) };
    }
    await client.answerElicitation({ elicitationId, response, answeredBy: osUserName(), via: 'cli' });
    io.out(`Answered ${elicitationId} (${action}); the run resumes.`);
    return EXIT_CODES.ok;
  });
}

export interface FormField {
  name: string;
  type: string;
  required: boolean;
  allowed?: string[];
  default?: unknown;
}

/** The flat fields of a requested schema, as the MCP specification restricts it. */
function formFields(schema: Record<string, unknown>): FormField[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.entries(properties).map(([name, field]) => {
    const items = (field.items ?? {}) as Record<string, unknown>;
    const values = (field.enum ??
      items.enum ??
      (field.oneOf as Array<{ const?: unknown }> | undefined)?.map((option) => option.const)) as unknown[] | undefined;
    return {
      name,
      type: String(field.type ?? 'string'),
      required: required.includes(name),
      allowed: values?.map(String),
      default: field.default,
    };
  });
}

/** `field=value` pairs read by each field's type; an unknown field is left for the schema check to name. */
export function contentOf(pairs: string[], fields: FormField[]): Record<string, ElicitationValue> {
  const content: Record<string, ElicitationValue> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0)
      throw new AgentqError({ code: 'VALIDATION', field: 'set', message: `--set ${pair}: write field=value` });
    const name = pair.slice(0, at);
    const text = pair.slice(at + 1);
    const type = fields.find((field) => field.name === name)?.type;
    content[name] =
      type === 'number' || type === 'integer'
        ? numberOf(name, text, type)
        : type === 'boolean'
          ? text === 'true'
            ? true
            : text === 'false'
              ? false
              : text
          : type === 'array'
            ? text.split(',').filter(Boolean)
            : text;
  }
  return content;
}

/** A number field's value, read strictly: `--set count=` or `--set count=abc` is refused, naming the field. */
function numberOf(name: string, text: string, type: 'number' | 'integer'): number {
  const value = text.trim() === '' ? Number.NaN : Number(text);
  if (!Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) {
    throw new AgentqError({
      code: 'VALIDATION',
      field: name,
      message: `--set ${name}: expected ${type === 'integer' ? 'a whole number' : 'a number'}, got ${JSON.stringify(text)}`,
    });
  }
  return value;
}
