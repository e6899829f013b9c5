import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with ids as lowercase hex. */
export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
  serviceName?: string;
}

/** A loopback OTLP/HTTP receiver that keeps every span it is sent. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`, for `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  url: string;
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

type JsonValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type JsonAttribute = { key: string; value: JsonValue };
type JsonExport = {
  resourceSpans?: Array<{
    resource?: { attributes?: JsonAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        name: string;
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        attributes?: JsonAttribute[];
      }>;
    }>;
  }>;
};

/** Ids arrive as hex in OTLP JSON; some encoders send base64. */
function hexOf(id: string | undefined): string | undefined {
  if (!id) return undefined;
  return /^[0-9a-f]+$/i.test(id) && (id.length === 32 || id.length === 16)
    ? id.toLowerCase()
    : Buffer.from(id, 'base64').toString('hex');
}

function attributesOf(list: JsonAttribute[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) {
    out[key] =
      value.stringValue ??
      value.boolValue ??
      value.doubleValue ??
      (value.intValue === undefined ? undefined : Number(value.intValue));
  }
  return out;
}

/** Starts a receiver on a free loopback port; it accepts `POST /v1/traces` as JSON. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as JsonExport;
        for (const resourceSpans of body.resourceSpans ?? []) {
          const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              received.push({
                name: span.name,
                traceId: hexOf(span.traceId) as string,
                spanId: hexOf(span.spanId) as string,
                parentSpanId: hexOf(span.parentSpanId),
                attributes: attributesOf(span.attributes),
                serviceName: typeof serviceName === 'string' ? serviceName : undefined,
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
