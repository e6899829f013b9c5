import {
  context as otelContext,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Link,
  type Span,
  type TimeInput,
  type Tracer,
} from '@opentelemetry/api';

/** Name of agentq's tracer (its instrumentation scope). */
export const AGENTQ_TRACER_NAME = 'agentq';

/**
 * agentq's tracer, from the global provider. Until a process registers one (see `startTelemetry`,
 * or a test's in-memory provider) it is OpenTelemetry's no-op tracer: every span costs a few
 * allocations and nothing is recorded.
 */
export function agentqTracer(): Tracer {
  return trace.getTracer(AGENTQ_TRACER_NAME);
}

/** The active context, to parent spans started later (in callbacks that run elsewhere). */
export function activeContext(): Context {
  return otelContext.active();
}

/** The active span, to add attributes to a span someone else started (the AI SDK's tool call). */
export function activeSpan(): Span | undefined {
  return trace.getActiveSpan();
}

/** Options of {@link withSpan}. */
export interface WithSpanOptions {
  attributes?: Attributes;
  /** @default SpanKind.INTERNAL */
  kind?: SpanKind;
  /** Parent context. @default the active context */
  parent?: Context;
  /** When the span began, for spans recorded after the fact (an approval wait). */
  startTime?: TimeInput;
  links?: Link[];
  /** @default agentqTracer() */
  tracer?: Tracer;
  /**
   * Errors that are control flow rather than failures (a run parking on its approvals): the span
   * ends without an error status. Return the outcome to record as `agentq.outcome`, or `undefined`
   * for a real error.
   */
  expectedError?: (error: unknown) => string | undefined;
}

/**
 * Runs `fn` inside an active span that ends when it settles. A thrown error is recorded on the
 * span (message only: stacks and causes may carry arguments) and rethrown.
 */
export async function withSpan<T>(name: string, options: WithSpanOptions, fn: (span: Span) => Promise<T>): Promise<T> {
  const tracer = options.tracer ?? agentqTracer();
  const parent = options.parent ?? otelContext.active();
  return await tracer.startActiveSpan(
    name,
    {
      kind: options.kind ?? SpanKind.INTERNAL,
      attributes: options.attributes,
      startTime: options.startTime,
      links: options.links,
    },
    parent,
    async (span) => {
      try {
        return await fn(span);
      } catch (error) {
        const expected = options.expectedError?.(error);
        if (expected !== undefined) span.setAttribute('agentq.outcome', expected);
        else recordSpanError(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

/** Marks a span failed with the error's name, code and message. */
export function recordSpanError(span: Span, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  span.setStatus({ code: SpanStatusCode.ERROR, message });
  span.setAttribute('agentq.outcome', 'error');
  if (typeof code === 'string') span.setAttribute('agentq.error.code', code);
  span.addEvent('exception', {
    'exception.type': error instanceof Error ? error.name : typeof error,
    'exception.message': message,
  });
}

export { ROOT_CONTEXT, SpanKind };
export type { Attributes, Context, Span, Tracer };
