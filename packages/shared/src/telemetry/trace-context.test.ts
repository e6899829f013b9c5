import { ROOT_CONTEXT, trace, TraceFlags } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { isTelemetryRequested } from './start-telemetry.js';
import { contextFromTrace, traceContextOf, traceContextSchema, withoutTrace } from './trace-context.js';

const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
const spanId = '00f067aa0ba902b7';

describe('trace context in job data', () => {
  it('round-trips a span context through the W3C form', () => {
    const context = trace.setSpanContext(ROOT_CONTEXT, {
      traceId,
      spanId,
      traceFlags: TraceFlags.SAMPLED,
      isRemote: false,
    });
    const carried = traceContextOf(context);
    expect(carried).toEqual({ traceparent: `00-${traceId}-${spanId}-01` });
    const restored = trace.getSpanContext(contextFromTrace(carried));
    expect(restored).toMatchObject({ traceId, spanId, traceFlags: TraceFlags.SAMPLED, isRemote: true });
  });

  it('carries nothing without a span, and starts afresh from a bad or all-zero context', () => {
    expect(traceContextOf(ROOT_CONTEXT)).toBeUndefined();
    for (const bad of [
      { traceparent: `00-${'0'.repeat(32)}-${spanId}-01` },
      { traceparent: 'not-a-traceparent' },
      { traceparent: `00-${traceId.toUpperCase()}-${spanId}-01` },
      'text',
      42,
    ]) {
      expect(trace.getSpanContext(contextFromTrace(bad))).toBeUndefined();
    }
    expect(traceContextSchema.safeParse({ traceparent: `00-${traceId}-${spanId}-01`, extra: 1 }).success).toBe(false);
    expect(traceContextSchema.safeParse({ traceparent: `00-${traceId}-${spanId}-01`, tracestate: 'a=1' }).success).toBe(
      true,
    );
  });

  it('leaves the trace out of what idempotency compares', () => {
    expect(withoutTrace({ input: 1, trace: { traceparent: 'x' } })).toEqual({ input: 1 });
    expect(withoutTrace({ input: 1 })).toEqual({ input: 1 });
    expect(withoutTrace(null)).toBeNull();
  });
});

describe('isTelemetryRequested', () => {
  it('is off by default and on with an OTLP endpoint, unless the SDK or the exporter is turned off', () => {
    expect(isTelemetryRequested({})).toBe(false);
    expect(isTelemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(isTelemetryRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(
      isTelemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toBe(false);
    expect(
      isTelemetryRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_EXPORTER: 'none' }),
    ).toBe(false);
  });
});
