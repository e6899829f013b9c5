import { silentLogger, startTelemetry, type Telemetry } from '@agentq/shared';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';

/** The same start-up the roles use, with an in-memory exporter instead of OTLP. */
export async function startMemoryTelemetry(): Promise<{ telemetry: Telemetry; exporter: InMemorySpanExporter }> {
  const exporter = new InMemorySpanExporter();
  const telemetry = await startTelemetry({
    serviceName: 'agentq-test',
    logger: silentLogger(),
    env: {},
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  return { telemetry, exporter };
}
