import { approvalIdFor } from '@agentq/store';
import {
  digestOf,
  elicitationResponseSchema,
  type ElicitationRequestRecord,
  type ElicitationResponse,
  type SecretValueSet,
} from '@agentq/shared';
import { elicitationOfToolCall, readElicitation, registerElicitation, type RedisConnection } from '@agentq/store';
import { ElicitationParkedError } from './elicitation-parked-error.js';

/** A form elicitation as the server sent it, as far as it is read here. */
export interface AskedElicitation {
  mode?: string;
  message?: string;
  requestedSchema?: unknown;
}

/** The run an attempt's tool calls belong to, for their elicitations. */
export interface ElicitationRun {
  redis: RedisConnection;
  /** The run shard's key prefix. */
  prefix: string;
  shardIndex: number | undefined;
  runId: string;
  incarnation: string;
  /** How long a person has to answer (the run's approval timeout). */
  timeoutMs: number;
  /**
   * The process's secret values, masked out of a question's text and requested schema before it
   * is stored and shown: a server can echo what it was given (a header, an env value) into both.
   * @default nothing masked
   */
  secrets?: Pick<SecretValueSet, 'mask'>;
}

/**
 * The elicitations of one tool call of one run: what the MCP pool hands a server's
 * `elicitation/create` to when the server's policy is `ask`.
 *
 * The recorded answer is keyed by the run, its incarnation, the tool, the digest of its arguments
 * and the digest of the question (message and requested schema), so the same call asking the same
 * question after a resume gets the answer a person gave; a question without an answer is
 * registered and answered `cancel` to the server, and {@link parked} tells the tool journal to
 * park the run instead of recording the call.
 */
export class ElicitationScope {
  /** Set when a question had no answer yet: the call's outcome must be discarded and the run park. */
  parked: ElicitationParkedError | undefined;

  constructor(
    private readonly run: ElicitationRun,
    private readonly call: { toolName: string; toolCallId: string; input: unknown },
  ) {}

  /** Answers one `elicitation/create` of `serverId` during this call. */
  async ask(serverId: string, request: AskedElicitation): Promise<ElicitationResponse> {
    // URL-mode elicitations send a person elsewhere; a parked run cannot follow them.
    if (request.mode !== undefined && request.mode !== 'form') return { action: 'decline' };
    // A second question in the same call after one already parked it: the call is discarded anyway.
    if (this.parked) return { action: 'cancel' };
    const { run, call } = this;
    const mask = <T>(value: T): T => (run.secrets ? run.secrets.mask(value) : value);
    const requestedSchema = mask(asRecord(request.requestedSchema) ?? {});
    const message = mask(request.message ?? '');
    const digest = digestOf({ message, requestedSchema });
    const argsDigest = digestOf(call.input ?? {});
    const elicitationId = approvalIdFor({
      runId: run.runId,
      incarnation: run.incarnation,
      toolCallId: `elicitation:${call.toolName}:${argsDigest}:${digest}`,
      shard: { index: run.shardIndex },
    }).replace(/^appr-/, 'elic-');
    const existing = await readElicitation({ redis: run.redis, prefix: run.prefix, elicitationId });
    if (existing?.response) return elicitationResponseSchema.parse(existing.response.response);
    const now = Date.now();
    const record: ElicitationRequestRecord = {
      elicitationId,
      runId: run.runId,
      incarnation: run.incarnation,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      serverId,
      argsDigest,
      digest,
      message,
      requestedSchema,
      requestedAt: now,
      expiresAt: now + run.timeoutMs,
    };
    await registerElicitation({ redis: run.redis, prefix: run.prefix, request: record });
    this.parked = new ElicitationParkedError({ elicitationId, serverId });
    return { action: 'cancel' };
  }
}

/**
 * Whether a run's tool call that an earlier attempt claimed may go out again: only when that
 * attempt parked it on an elicitation that now has an answer (the call is then made again with
 * the answer; see docs/mcp-servers.md).
 */
export async function mayRepeatElicitedCall(run: ElicitationRun, toolCallId: string): Promise<boolean> {
  const record = await elicitationOfToolCall({ redis: run.redis, prefix: run.prefix, runId: run.runId, toolCallId });
  return record !== null && record.request.incarnation === run.incarnation && record.response !== null;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
