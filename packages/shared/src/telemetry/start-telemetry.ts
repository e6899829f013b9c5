import { context, propagation, trace } from '@opentelemetry/api';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-node';
import type { Logger } from '../logging/logger.js';

/** Options of {@link startTelemetry}. */
export interface StartTelemetryOptions {
  /**
   * `service.name` of this process's spans, unless `OTEL_SERVICE_NAME` says otherwise.
   * For example `agentq-worker`.
   */
  serviceName: string;
  logger: Logger;
  /**
   * Environment that decides whether tracing is on. The OpenTelemetry SDK itself reads the
   * standard `OTEL_*` variables from `process.env`.
   * @default process.env
   */
  env?: Record<string, string | undefined>;
  /**
   * Span processors to use instead of the OTLP exporter; tracing is then on whatever the
   * environment says. For tests (an in-memory exporter) and embedding.
   */
  spanProcessors?: SpanProcessor[];
}

/** Tracing of one process. */
export interface Telemetry {
  /** Whether spans are exported. */
  readonly enabled: boolean;
  /** Flushes pending spans and stops exporting. Idempotent; never throws. */
  shutdown(): Promise<void>;
}

/**
 * Whether `env` asks for traces: an OTLP endpoint is set (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`), and neither `OTEL_SDK_DISABLED=true` nor
 * `OTEL_TRACES_EXPORTER=none` turns it off again.
 */
export function isTelemetryRequested(env: Record<string, string | undefined>): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return false;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return env.OTEL_TRACES_EXPORTER?.trim().toLowerCase() !== 'none';
}

const disabled: Telemetry = { enabled: false, shutdown: async () => undefined };

let active = false;

/**
 * Whether {@link startTelemetry} turned tracing on in this process. Trace context that arrives
 * from outside (an HTTP `traceparent` header) is only taken up then, so job data carries no
 * trace field while tracing is off.
 */
export function isTracingActive(): boolean {
  return active;
}

/**
 * Starts exporting traces over OTLP/HTTP when the environment asks for it (see
 * {@link isTelemetryRequested}); otherwise does nothing and loads nothing. Off by default.
 *
 * The exporter, sampler, batch processor and resource follow the standard OpenTelemetry
 * variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_TRACES_SAMPLER`, `OTEL_BSP_*`,
 * `OTEL_RESOURCE_ATTRIBUTES`, ...). It registers the global tracer provider, the W3C trace
 * context propagator and an AsyncLocalStorage context manager, so agentq's spans (and the AI
 * SDK's) nest wherever they are started.
 */
export async function startTelemetry(options: StartTelemetryOptions): Promise<Telemetry> {
  const env = options.env ?? process.env;
  if (!options.spanProcessors && !isTelemetryRequested(env)) return disabled;
  // Loaded only when asked for: a process without tracing never pays for the SDK.
  const [{ NodeTracerProvider, BatchSpanProcessor }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
  ]);
  const spanProcessors = options.spanProcessors ?? [
    new BatchSpanProcessor(new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()),
  ];
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || options.serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new NodeTracerProvider({
    resource,
    spanProcessors,
  });
  provider.register();
  active = true;
  options.logger.info({ serviceName: env.OTEL_SERVICE_NAME || options.serviceName }, 'tracing on');
  let stopping: Promise<void> | undefined;
  return {
    enabled: true,
    shutdown() {
      stopping ??= provider
        .shutdown()
        .catch((error: Error) => {
          options.logger.warn({ error: error.message }, 'could not flush traces');
        })
        .finally(() => {
          active = false;
          trace.disable();
          context.disable();
          propagation.disable();
        });
      return stopping;
    },
  };
}
