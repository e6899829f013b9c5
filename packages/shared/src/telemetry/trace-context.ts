import {
  context as otelContext,
  createTraceState,
  isSpanContextValid,
  ROOT_CONTEXT,
  trace,
  type Context,
  type SpanContext,
} from '@opentelemetry/api';
import { z } from 'zod';

/**
 * A W3C Trace Context (`traceparent`, optional `tracestate`) carried in job data, so that one run
 * gives one trace across the producer, every worker attempt, the approvals and the resume. The
 * pattern has fixed-width parts only, so matching stays linear.
 */
export const traceContextSchema = z.strictObject({
  traceparent: z
    .string()
    .regex(
      /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/,
      'must be a W3C traceparent (version-trace-span-flags)',
    ),
  tracestate: z.string().max(512).optional(),
});

/** A W3C Trace Context as stored in job data. */
export type TraceContext = z.output<typeof traceContextSchema>;

/**
 * The trace context of `context`'s span (the active one by default), or `undefined` when there is
 * none: tracing is off, or nothing is being traced. Job data then carries no `trace` field at all.
 */
export function traceContextOf(context: Context = otelContext.active()): TraceContext | undefined {
  const spanContext = trace.getSpanContext(context);
  if (!spanContext || !isSpanContextValid(spanContext)) return undefined;
  return traceContextFromSpanContext(spanContext);
}

/** The W3C form of a span context. */
export function traceContextFromSpanContext(spanContext: SpanContext): TraceContext {
  const flags = (spanContext.traceFlags & 0xff).toString(16).padStart(2, '0');
  const tracestate = spanContext.traceState?.serialize();
  return {
    traceparent: `00-${spanContext.traceId}-${spanContext.spanId}-${flags}`,
    ...(tracestate ? { tracestate } : {}),
  };
}

/**
 * A context whose remote parent is `traceContext`, for spans that continue a trace begun in
 * another process. Without one (or with an invalid one, such as all-zero ids) it is `fallback`,
 * so a bad header never breaks a run: the span simply starts a trace of its own. Takes unchecked
 * job data and validates it itself.
 */
export function contextFromTrace(traceContext: unknown, fallback: Context = ROOT_CONTEXT): Context {
  if (traceContext === undefined || traceContext === null) return fallback;
  const parsed = traceContextSchema.safeParse(traceContext);
  if (!parsed.success) return fallback;
  const [, traceId = '', spanId = '', flags = '00'] = parsed.data.traceparent.split('-');
  const spanContext: SpanContext = {
    traceId,
    spanId,
    traceFlags: Number.parseInt(flags, 16) & 0xff,
    isRemote: true,
    ...(parsed.data.tracestate ? { traceState: createTraceState(parsed.data.tracestate) } : {}),
  };
  if (!isSpanContextValid(spanContext)) return fallback;
  return trace.setSpanContext(fallback, spanContext);
}

/** Job data without its `trace` field: what idempotency compares, since each enqueue is traced apart. */
export function withoutTrace<T>(data: T): T {
  if (!data || typeof data !== 'object' || Array.isArray(data) || !('trace' in data)) return data;
  const { trace: _trace, ...rest } = data as T & { trace?: unknown };
  return rest as T;
}
