// A small OTLP/HTTP trace receiver for the tracing e2e test (issue 33): the services' exporters post JSON-encoded
// `ExportTraceServiceRequest`s to /v1/traces; the receiver keeps every span with the service that sent it.
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { gunzipSync } from 'node:zlib';

/** One received span, flattened. Ids are hex, as the JSON encoding of OTLP writes them. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startNs: bigint;
  attributes: Record<string, string | number | boolean>;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  attributes?: OtlpAttribute[];
}
interface OtlpExport {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

function valueOf(value: OtlpValue): string | number | boolean {
  return value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.boolValue ?? value.doubleValue ?? ''));
}

function attributesOf(list: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((attribute) => [attribute.key, valueOf(attribute.value)]));
}

export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  /** Bodies that were not JSON OTLP (so a protocol mismatch fails the test instead of looking like no spans). */
  readonly rejected: string[] = [];

  private constructor(private readonly server: Server) {}

  static async start(port: number): Promise<OtlpReceiver> {
    const server = createServer();
    const receiver = new OtlpReceiver(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => receiver.handle(request, response));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    return receiver;
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  /** The spans that name this order. */
  ofOrder(orderId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.attributes['cp.order.id'] === orderId);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = request.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
      if (request.url !== '/v1/traces' || !String(request.headers['content-type']).includes('application/json')) {
        this.rejected.push(`${request.url ?? ''} ${String(request.headers['content-type'])}`);
        response.writeHead(415).end();
        return;
      }
      this.collect(JSON.parse(body.toString('utf8')) as OtlpExport);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  }

  private collect(payload: OtlpExport): void {
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            service,
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId || undefined,
            name: span.name,
            kind: span.kind,
            startNs: BigInt(span.startTimeUnixNano),
            attributes: attributesOf(span.attributes),
          });
        }
      }
    }
  }
}
