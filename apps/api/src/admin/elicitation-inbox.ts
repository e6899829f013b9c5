import type { AgentqClient, ElicitationInfo } from '@agentq/client';
import { AgentqError, type ElicitationResponse, type ElicitationValue } from '@agentq/shared';
import { z } from 'zod';
import { escapeHtml, escapeHtmlExact, formatTime } from './html.js';

/** One field of a requested form (the MCP specification's flat primitive fields). */
interface FormField {
  name: string;
  type: string;
  title: string;
  required: boolean;
  allowed: string[] | undefined;
}

function fieldsOf(schema: Record<string, unknown>): FormField[] {
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.entries(properties).map(([name, field]) => {
    const options = (field.enum ?? (field.oneOf as Array<{ const?: unknown }> | undefined)?.map((one) => one.const)) as
      unknown[] | undefined;
    return {
      name,
      type: String(field.type ?? 'string'),
      title: typeof field.title === 'string' ? field.title : name,
      required: required.includes(name),
      allowed: options?.map(String),
    };
  });
}

function inputOf(field: FormField): string {
  const name = `field.${escapeHtmlExact(field.name)}`;
  if (field.allowed) {
    const options = ['', ...field.allowed]
      .map((value) => `<option value="${escapeHtmlExact(value)}">${escapeHtml(value || '—')}</option>`)
      .join('');
    return `<select name="${name}">${options}</select>`;
  }
  if (field.type === 'boolean') {
    return `<select name="${name}"><option value="">—</option><option value="true">true</option><option value="false">false</option></select>`;
  }
  const type = field.type === 'number' || field.type === 'integer' ? 'number' : 'text';
  return `<input type="${type}" name="${name}"${field.type === 'number' ? ' step="any"' : ''}>`;
}

/**
 * The inbox's section of unanswered elicitations: the server's message and a form built from the
 * requested schema, answered (accept, decline, cancel) as the logged-in token via the inbox.
 */
export function elicitationsSection(elicitations: readonly ElicitationInfo[], csrf: string): string {
  if (elicitations.length === 0) return '';
  const items = elicitations
    .map(({ request }) => {
      const fields = fieldsOf(request.requestedSchema)
        .map(
          (field) => `<p><label>${escapeHtml(field.title)}${field.required ? ' *' : ''} ${inputOf(field)}</label></p>`,
        )
        .join('\n');
      return `<div class="elicitation" data-elicitation-id="${escapeHtml(request.elicitationId)}">
  <p><a href="/admin/runs/${encodeURIComponent(request.runId)}">${escapeHtml(request.runId)}</a> · server
  <code>${escapeHtml(request.serverId)}</code> · tool <code>${escapeHtml(request.toolName)}</code> · expires
  ${escapeHtml(formatTime(request.expiresAt))}</p>
  <p class="message">${escapeHtml(request.message)}</p>
  <form method="post" action="/admin/elicitations/${encodeURIComponent(request.elicitationId)}/answer">
    <input type="hidden" name="_csrf" value="${escapeHtml(csrf)}">
${fields}
    <button type="submit" name="action" value="accept" class="approve">Accept</button>
    <button type="submit" name="action" value="decline" class="deny">Decline</button>
    <button type="submit" name="action" value="cancel">Cancel</button>
  </form>
</div>`;
    })
    .join('\n');
  return `<h2>Questions from MCP servers</h2>\n${items}`;
}

const answerForm = z.looseObject({ action: z.enum(['accept', 'decline', 'cancel']) });

/**
 * Answers an elicitation from the inbox form: fields arrive as `field.<name>`, read by the type the
 * requested schema gives them (an empty field is left out); the client validates the content
 * against the schema and records the answer once. Returns the notice to show.
 */
export async function answerFromForm(options: {
  client: AgentqClient;
  elicitationId: string;
  body: unknown;
  answeredBy: string;
}): Promise<string> {
  const form = answerForm.safeParse(options.body ?? {});
  if (!form.success) throw new AgentqError({ code: 'VALIDATION', field: 'action', message: 'Invalid form' });
  const { action } = form.data;
  let response: ElicitationResponse = { action } as ElicitationResponse;
  if (action === 'accept') {
    const record = await options.client.getElicitation(options.elicitationId);
    const content: Record<string, ElicitationValue> = {};
    for (const field of fieldsOf(record.request.requestedSchema)) {
      const text = (form.data as Record<string, unknown>)[`field.${field.name}`];
      if (typeof text !== 'string' || text === '') continue;
      content[field.name] =
        field.type === 'number' || field.type === 'integer'
          ? Number(text)
          : field.type === 'boolean'
            ? text === 'true'
            : field.type === 'array'
              ? text.split(',').filter(Boolean)
              : text;
    }
    response = { action, content };
  }
  await options.client.answerElicitation({
    elicitationId: options.elicitationId,
    response,
    answeredBy: options.answeredBy,
    via: 'inbox',
  });
  return `Answered ${options.elicitationId} (${action}) as ${options.answeredBy}`;
}
