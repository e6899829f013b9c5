import {
  context as otelContext,
  trace,
  type Context,
  type Span,
  type SpanOptions,
  type Tracer,
} from '@opentelemetry/api';

/** Options of {@link reparentingTracer}. */
export interface ReparentingTracerOptions {
  /** The tracer that really records the spans. */
  tracer: Tracer;
  /**
   * The parent a span of this name gets, or `undefined` to keep the context it was started in.
   * Called when the span starts.
   */
  parentOf: (name: string) => Context | undefined;
}

/**
 * A tracer that starts some spans under a parent of the caller's choosing instead of the active
 * context. For a library that starts spans where it pleases (the AI SDK starts a step's model call
 * and tool calls under its own `ai.generateText` span), so that they can hang under a span the
 * library does not know about (the run's step). Everything else passes through unchanged.
 */
export function reparentingTracer(options: ReparentingTracerOptions): Tracer {
  const { tracer, parentOf } = options;
  return {
    startSpan(name: string, spanOptions?: SpanOptions, parent?: Context): Span {
      return tracer.startSpan(name, spanOptions, parentOf(name) ?? parent);
    },
    startActiveSpan<F extends (span: Span) => unknown>(name: string, ...rest: unknown[]): ReturnType<F> {
      const fn = rest.at(-1) as F;
      const spanOptions = (rest.length >= 2 ? rest[0] : {}) as SpanOptions;
      const given = rest.length >= 3 ? (rest[1] as Context) : otelContext.active();
      return tracer.startActiveSpan(name, spanOptions, parentOf(name) ?? given, fn);
    },
  } as Tracer;
}

/** `parent` with `span` as its active span, to start children of `span` from anywhere. */
export function contextWithSpan(parent: Context, span: Span): Context {
  return trace.setSpan(parent, span);
}
