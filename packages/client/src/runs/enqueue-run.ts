import {
  AgentqError,
  contextFromTrace,
  defaultRunJobOptions,
  digestOf,
  newRunIncarnation,
  parseToolId,
  parseWith,
  QUEUE_NAMES,
  SpanKind,
  traceContextOf,
  ValidationError,
  withoutTrace,
  withSpan,
  type RunSpec,
  type RunSpecSchema,
  type ValidationIssue,
} from '@agentq/shared';
import type { ClientContext } from '../client-context.js';
import { findRun } from './find-run.js';
import { customRunIdSchema, newRunId } from './run-id.js';

/** Options of `enqueueRun`. */
export interface EnqueueRunOptions {
  /**
   * The run's id (its job id). Enqueueing the same spec twice under one id adds one run; a
   * different spec under an id already in use is a `CONFLICT`.
   * @default a fresh `run-<uuid>`
   */
  runId?: string;
}

/** What `enqueueRun` did. */
export interface EnqueuedRun {
  runId: string;
  /** `false` when a run with this id and the same spec already existed. */
  created: boolean;
}

/** The BullMQ job name of every run. */
export const RUN_JOB_NAME = 'run';

declare const parsedRunSpecBrand: unique symbol;

/** A run spec as a client's `parsedRunSpecSchema` returned it: deeply frozen, and known to that client. */
export type ParsedRunSpec = RunSpec & { readonly [parsedRunSpecBrand]: true };

/**
 * The specs a {@link parsedRunSpecSchemaOf} schema returned, each with the run spec schema (and so
 * the limits) it passed. Only a parse puts a spec here: no JSON value or caller-built object can.
 */
const parsedSpecs = new WeakMap<object, RunSpecSchema>();
const markingSchemas = new WeakMap<RunSpecSchema, ParsedRunSpecSchema>();

function freezeDeep<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  for (const member of Object.values(value)) freezeDeep(member);
  return Object.freeze(value);
}

function markParsed(schema: RunSpecSchema, spec: RunSpec): ParsedRunSpec {
  parsedSpecs.set(freezeDeep(spec), schema);
  return spec as ParsedRunSpec;
}

function buildParsedRunSpecSchema(schema: RunSpecSchema) {
  return schema.transform((spec) => markParsed(schema, spec));
}

/** {@link parsedRunSpecSchemaOf}'s schema. */
export type ParsedRunSpecSchema = ReturnType<typeof buildParsedRunSpecSchema>;

/**
 * `schema` followed by a step that freezes each spec it returns and records it as parsed by
 * `schema`: `enqueueRun` of a client whose run spec schema is `schema` takes such a spec as it is
 * instead of parsing it again. For a caller that validates a spec inside a larger input (the REST
 * API's request body, whose errors name `spec.…`). The spec is frozen, so what was checked is what
 * is enqueued; anything else handed to `enqueueRun` is parsed there.
 */
export function parsedRunSpecSchemaOf(schema: RunSpecSchema): ParsedRunSpecSchema {
  let marking = markingSchemas.get(schema);
  if (!marking) {
    marking = buildParsedRunSpecSchema(schema);
    markingSchemas.set(schema, marking);
  }
  return marking;
}

/** `spec` as parsed by `schema`: taken as it is when `schema`'s marking step returned it, else parsed. */
function runSpecFor(schema: RunSpecSchema, spec: unknown): RunSpec {
  if (typeof spec === 'object' && spec !== null && parsedSpecs.get(spec) === schema) return spec as RunSpec;
  return parseWith(schema, spec, 'run spec');
}

/**
 * Refuses a spec naming an MCP server the store does not know (in `assistant.mcpServers` or as the
 * server part of a `tools` id): such a run would start and silently miss those tools. One HMGET.
 * A known but disabled server is accepted; the run is told at run time, as for one removed later.
 * `disabledTools` may name anything: disabling a tool nobody offers is harmless.
 */
export async function assertServersKnown(context: ClientContext, spec: RunSpec): Promise<void> {
  const named: Array<{ serverId: string; field: string }> = [];
  spec.assistant.mcpServers.forEach((serverId, index) =>
    named.push({ serverId, field: `assistant.mcpServers.${index}` }),
  );
  spec.tools?.forEach((id, index) => {
    const parsed = parseToolId(id);
    if (parsed) named.push({ serverId: parsed.serverId, field: `tools.${index}` });
  });
  if (named.length === 0) return;
  const ids = [...new Set(named.map((entry) => entry.serverId))];
  const stored = await context.servers.existing(ids);
  const unknown = new Set(ids.filter((serverId) => !stored.has(serverId)));
  if (unknown.size === 0) return;
  const issues: ValidationIssue[] = named
    .filter((entry) => unknown.has(entry.serverId))
    .map((entry) => ({ field: entry.field, message: `unknown MCP server ${entry.serverId}` }));
  throw new ValidationError({ what: 'run spec', issues });
}

/**
 * Validates a run spec with the shared schema and adds it to the `agent-runs` queue of the run's
 * shard. Nothing is written when
 * the spec or the id is invalid (`VALIDATION`, naming the field), or when the spec names an MCP
 * server the store does not know (`VALIDATION`, naming the field and the server id). A spec the
 * client's own `parsedRunSpecSchema` returned is not parsed again.
 */
export async function enqueueRun(
  context: ClientContext,
  input: { spec: unknown; options?: EnqueueRunOptions },
): Promise<EnqueuedRun> {
  const parsed = runSpecFor(context.runSpecSchema, input.spec);
  // The enqueue opens the run's trace: under the caller's span, or under the trace context the
  // spec carries (a REST caller's `traceparent`); every worker attempt continues it.
  const { trace: callerTrace, ...untraced } = parsed;
  return await withSpan(
    'agentq.run.enqueue',
    {
      kind: SpanKind.PRODUCER,
      parent: callerTrace ? contextFromTrace(callerTrace) : undefined,
      attributes: { 'messaging.system': 'bullmq', 'messaging.destination.name': QUEUE_NAMES.agentRuns },
    },
    async (span) => {
      const trace = traceContextOf();
      const enqueued = await addRun(context, {
        spec: trace ? { ...untraced, trace } : untraced,
        options: input.options,
      });
      span.setAttributes({ 'agentq.run.id': enqueued.runId, 'agentq.run.created': enqueued.created });
      return enqueued;
    },
  );
}

async function addRun(
  context: ClientContext,
  input: { spec: RunSpec; options?: EnqueueRunOptions },
): Promise<EnqueuedRun> {
  const { spec } = input;
  await assertServersKnown(context, spec);
  const chosen = input.options?.runId !== undefined;
  const runId = chosen ? parseWith(customRunIdSchema, input.options?.runId, 'run id') : newRunId();
  // A fresh id cannot be taken; only a chosen one needs the idempotency check.
  // A fresh id routes to its shard under the current count; a chosen one may already exist under
  // an earlier count, and then stays where it is.
  const found = chosen ? await findRun(context, runId) : undefined;
  const queue = found?.queue ?? context.runsQueueOf(context.shards.forRun(runId));
  const existing = found ? await queue.getJob(runId) : undefined;
  if (existing) {
    // Idempotent on the id: a retried request is fine, a different run under a taken id is not.
    if (identityOf(existing.data) === identityOf(spec)) return { runId, created: false };
    throw new AgentqError({
      code: 'CONFLICT',
      field: 'runId',
      message: `Run ${runId} already exists with a different spec`,
    });
  }
  // Every run gets an incarnation of its own, whatever the caller sent: approvals bind to it, so a
  // run enqueued again under this id once the first is gone never meets the first one's approvals.
  await queue.add(
    RUN_JOB_NAME,
    { ...spec, incarnation: newRunIncarnation() },
    { ...defaultRunJobOptions({ attempts: context.runAttempts }), jobId: runId },
  );
  if (chosen) {
    // BullMQ keeps the first job added under an id and ignores later ones, so when two callers
    // race with different specs, the one whose spec was not stored must hear CONFLICT.
    const stored = await queue.getJob(runId);
    if (stored && identityOf(stored.data) !== identityOf(spec)) {
      throw new AgentqError({
        code: 'CONFLICT',
        field: 'runId',
        message: `Run ${runId} already exists with a different spec`,
      });
    }
  }
  return { runId, created: true };
}

/** What makes two runs the same run: the spec, without what the producer adds (trace, incarnation). */
function identityOf(data: unknown): string {
  const { incarnation: _incarnation, ...rest } = (withoutTrace(data) ?? {}) as Record<string, unknown>;
  return digestOf(rest);
}
