/**
 * A small OTLP/HTTP trace receiver on 127.0.0.1 (port 0) for tests: it takes the JSON payloads the exporter posts to
 * `/v1/traces`, decodes the spans with their resource's `service.name`, and keeps the request headers.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  readonly kind: number;
  readonly attributes: Readonly<Record<string, string | number | boolean>>;
  readonly status: { readonly code: number; readonly message?: string };
  readonly serviceName: string | undefined;
}

export interface OtlpReceiver {
  readonly url: string;
  readonly spans: ReceivedSpan[];
  readonly requests: { readonly path: string; readonly headers: IncomingHttpHeaders; readonly contentType?: string }[];
  close(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean };
type KeyValue = { key: string; value: AnyValue };

function decodeValue(value: AnyValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  return JSON.stringify(value);
}

function attributesOf(list: readonly KeyValue[] | undefined): Record<string, string | number | boolean> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, decodeValue(kv.value)]));
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  const server = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    requests.push({
      path: request.url ?? '',
      headers: request.headers,
      ...(request.headers['content-type'] ? { contentType: request.headers['content-type'] } : {}),
    });
    if (
      request.method !== 'POST' ||
      request.url !== '/v1/traces' ||
      !/json/.test(request.headers['content-type'] ?? '')
    ) {
      response.writeHead(415).end();
      return;
    }
    const payload = JSON.parse(body) as {
      resourceSpans?: {
        resource?: { attributes?: KeyValue[] };
        scopeSpans?: {
          spans?: {
            traceId: string;
            spanId: string;
            parentSpanId?: string;
            name: string;
            kind: number;
            attributes?: KeyValue[];
            status?: { code?: number; message?: string };
          }[];
        }[];
      }[];
    };
    for (const resourceSpans of payload.resourceSpans ?? []) {
      const serviceName = attributesOf(resourceSpans.resource?.attributes)['service.name'];
      for (const scope of resourceSpans.scopeSpans ?? [])
        for (const span of scope.spans ?? [])
          spans.push({
            traceId: span.traceId,
            spanId: span.spanId,
            parentSpanId: span.parentSpanId ? span.parentSpanId : undefined,
            name: span.name,
            kind: span.kind,
            attributes: attributesOf(span.attributes),
            status: { code: span.status?.code ?? 0, ...(span.status?.message ? { message: span.status.message } : {}) },
            serviceName: typeof serviceName === 'string' ? serviceName : undefined,
          });
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port on 127.0.0.1 with nothing listening (it was bound, then closed). */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
